/**
 * The QR code of the link or of one of its variants: shown as an image and downloadable as SVG
 * at a chosen size (the server renders it; the browser only points at it, same origin).
 */
import { useState } from 'preact/hooks';
import { qrCodeUrl } from '../../api/links';
import type { Link } from '../../api/types';
import { SelectField } from '../../components/field';

const SIZES = [256, 512, 1024, 2048];

export function QrCode({ link }: { link: Link }) {
  const [size, setSize] = useState('512');
  const [variant, setVariant] = useState('');
  const encoded = variant ? `${link.shortUrl}/${variant}` : link.shortUrl;
  const download = `${link.slug}${variant ? `-${variant}` : ''}-qr-${size}.svg`;
  return (
    <section class="panel" aria-labelledby="qr-title">
      <h2 id="qr-title">QR code</h2>
      <div class="qr">
        <img
          class="qr-image"
          src={qrCodeUrl(link.id, 256, variant || undefined)}
          width={192}
          height={192}
          alt={`QR code for ${encoded}`}
        />
        <div class="stack">
          {link.variants.length > 0 && (
            <SelectField
              label="Encode"
              value={variant}
              onValue={setVariant}
              blank="The short link"
              options={link.variants.map((v) => ({ value: v.code, label: `Variant ${v.code}` }))}
            />
          )}
          <SelectField
            label="Size"
            value={size}
            onValue={setSize}
            options={SIZES.map((s) => ({ value: String(s), label: `${s} × ${s} px` }))}
          />
          <p>
            <a
              class="button secondary"
              href={qrCodeUrl(link.id, Number(size), variant || undefined)}
              download={download}
            >
              Download SVG
            </a>
          </p>
        </div>
      </div>
    </section>
  );
}
