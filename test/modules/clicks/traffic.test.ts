/**
 * Referrer host and traffic type, rule by rule as documented at the top of traffic.ts:
 * utm_medium first, then no referrer (or our own host) is direct, then webmail, social,
 * search, and everything else a referral.
 */
import { describe, expect, test } from 'bun:test';
import { preferredLanguage } from '../../../src/modules/clicks/enrich/language';
import { referrerHost, type TrafficType, trafficType } from '../../../src/modules/clicks/enrich/traffic';

/** The type a referrer URL gets with no utm_medium and our own host sl.test. */
function typeOf(referrer: string | null, utmMedium?: string): TrafficType {
  return trafficType(referrerHost(referrer), utmMedium, ['sl.test', 'app.sl.test']);
}

function expectTypes(type: TrafficType, referrers: string[]): void {
  const got = referrers.map((r) => [r, typeOf(r)]);
  expect(got).toEqual(referrers.map((r) => [r, type]));
}

describe('referrerHost', () => {
  test('the host, lower case, without www. and without port, path or query', () => {
    expect(referrerHost('https://www.google.com/')).toBe('google.com');
    expect(referrerHost('https://WWW.Google.CO.UK/search?q=slink')).toBe('google.co.uk');
    expect(referrerHost('http://news.ycombinator.com:8080/item?id=1#top')).toBe('news.ycombinator.com');
    expect(referrerHost('https://l.facebook.com/l.php?u=https%3A%2F%2Fsl.test%2Fx')).toBe('l.facebook.com');
    expect(referrerHost('https://user:pw@example.org/a')).toBe('example.org');
    // Only one leading www. goes; www2 and inner www stay.
    expect(referrerHost('https://www.www.example.org/')).toBe('www.example.org');
    expect(referrerHost('https://www2.example.org/')).toBe('www2.example.org');
    expect(referrerHost('https://shop.www.example.org/')).toBe('shop.www.example.org');
  });

  test('internationalised hosts come out in punycode, IP hosts as written by URL', () => {
    expect(referrerHost('https://bücher.example/')).toBe('xn--bcher-kva.example');
    expect(referrerHost('http://192.168.1.1/admin')).toBe('192.168.1.1');
    expect(referrerHost('http://[::1]:3000/')).toBe('[::1]');
  });

  test('null when absent, not a URL, or not http(s)', () => {
    for (const referrer of [
      null,
      '',
      'not a url',
      '/relative/path',
      'google.com',
      'android-app://com.google.android.gm',
      'android-app://com.google.android.googlequicksearchbox/',
      'ftp://example.org/file',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,hi',
      'about:blank',
    ]) {
      expect({ referrer, host: referrerHost(referrer) }).toEqual({ referrer, host: null });
    }
  });

  test('null when only www. is left', () => {
    expect(referrerHost('https://www./')).toBeNull();
  });
});

describe('trafficType rule 1: utm_medium says it first', () => {
  const MEDIA: [string, TrafficType][] = [
    ['email', 'email'],
    ['e-mail', 'email'],
    ['Newsletter', 'email'],
    ['EMAIL', 'email'],
    [' newsletter ', 'email'],
    ['social', 'social'],
    ['Social-Media', 'social'],
    ['social_media', 'social'],
    ['social-network', 'social'],
    ['SM', 'social'],
    ['cpc', 'search'],
    ['PPC', 'search'],
    ['paid-search', 'search'],
    ['paid_search', 'search'],
    ['paidsearch', 'search'],
    ['organic', 'search'],
    ['search', 'search'],
  ];

  test('each documented medium, whatever the referrer (none, own host, social, search, other)', () => {
    for (const [medium, type] of MEDIA) {
      for (const host of [null, 'sl.test', 'l.facebook.com', 'google.com', 'mail.google.com', 'example.org']) {
        expect({ medium, host, type: trafficType(host, medium, ['sl.test']) }).toEqual({ medium, host, type });
      }
    }
  });

  test('the examples: email, Newsletter, cpc and social override the referrer', () => {
    expect(typeOf('https://www.google.com/', 'email')).toBe('email');
    expect(typeOf('https://t.co/abc', 'Newsletter')).toBe('email');
    expect(typeOf('https://l.facebook.com/', 'cpc')).toBe('search');
    expect(typeOf('https://example.org/', 'social')).toBe('social');
    expect(typeOf(null, 'social')).toBe('social');
  });

  // Object.prototype's names included: MEDIUM is a plain object, and a function stored as the
  // traffic type made every flush of the link's clicks fail.
  test('an unknown or empty medium falls through to the referrer rules', () => {
    for (const medium of [
      'banner',
      'affiliate',
      'display',
      'referral',
      'paid',
      'qr',
      '',
      '   ',
      'e mail',
      'emails',
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      '__proto__',
    ]) {
      expect({
        medium,
        types: [
          typeOf(null, medium),
          typeOf('https://www.google.com/', medium),
          typeOf('https://example.org/', medium),
        ],
      }).toEqual({
        medium,
        types: ['direct', 'search', 'referral'],
      });
    }
  });
});

describe('trafficType rule 2: direct', () => {
  test('no referrer, or one that is not an http(s) URL', () => {
    expect(trafficType(null, undefined)).toBe('direct');
    expect(typeOf(null)).toBe('direct');
    expect(typeOf('')).toBe('direct');
    expect(typeOf('android-app://com.google.android.gm')).toBe('direct');
  });

  test('a referrer on our own hosts (any path, port, case or www.)', () => {
    expect(typeOf('https://sl.test/abc')).toBe('direct');
    expect(typeOf('https://WWW.SL.TEST:8443/abc')).toBe('direct');
    expect(typeOf('https://app.sl.test/links')).toBe('direct');
    // Exact host only: a look-alike is someone else.
    expect(typeOf('https://sl.test.example.org/')).toBe('referral');
    expect(typeOf('https://evil-sl.test/')).toBe('referral');
    // Without own hosts, our host is just another site.
    expect(trafficType('sl.test', undefined)).toBe('referral');
  });
});

describe('trafficType rule 3: webmail, social, search, referral', () => {
  test('webmail -> email', () => {
    expectTypes('email', [
      'https://mail.google.com/mail/u/0/',
      'https://outlook.live.com/mail/0/inbox',
      'https://outlook.office.com/mail/',
      'https://outlook.office365.com/',
      'https://mail.yahoo.com/d/folders/1',
      'https://mail.proton.me/u/0/inbox',
      'https://mail.aol.com/',
      'https://mail.yandex.ru/',
      'https://mail.yandex.com/',
      'https://e.mail.ru/inbox/',
      'https://app.fastmail.com/mail/Inbox',
      'https://webmail.example.com/roundcube/',
    ]);
  });

  test('social networks, their subdomains included -> social', () => {
    expectTypes('social', [
      'https://l.facebook.com/l.php?u=x',
      'https://m.facebook.com/',
      'https://www.facebook.com/',
      'https://l.instagram.com/',
      'https://t.co/abc',
      'https://twitter.com/x',
      'https://x.com/foo',
      'https://www.linkedin.com/feed',
      'https://lnkd.in/abc',
      'https://news.ycombinator.com/item?id=1',
      'https://old.reddit.com/r/x',
      'https://out.reddit.com/',
      'https://www.youtube.com/watch?v=1',
      'https://bsky.app/profile/x',
      'https://t.me/channel',
    ]);
  });

  test('hosts that merely end in a social host name are referrals (netflix.com is not x.com)', () => {
    expectTypes('referral', [
      'https://netflix.com/',
      'https://www.dropbox.com/s/x',
      'https://notfacebook.com/',
      'https://art.co/',
      'https://myreddit.com/',
      'https://facebook.com.evil.example/',
    ]);
  });

  test('search engines: bare domain or a search subdomain, any country suffix -> search', () => {
    expectTypes('search', [
      'https://www.google.com/',
      'https://google.co.uk/search?q=x',
      'https://www.google.de/',
      'https://www.google.com.au/',
      'https://duckduckgo.com/',
      'https://html.duckduckgo.com/html/',
      'https://search.brave.com/search?q=a',
      'https://www.bing.com/search?q=a',
      'https://cn.bing.com/',
      'https://search.yahoo.com/',
      'https://uk.search.yahoo.com/',
      'https://r.search.yahoo.com/',
      'https://yandex.ru/search/',
      'https://www.baidu.com/link?url=x',
      'https://m.baidu.com/',
      'https://www.ecosia.org/search',
      'https://www.qwant.com/',
      'https://www.startpage.com/',
      'https://kagi.com/search',
      'https://search.naver.com/',
      'https://search.seznam.cz/',
      'https://go.mail.ru/search?q=x',
    ]);
  });

  test('other hosts of a search company, and look-alikes, are referrals', () => {
    expectTypes('referral', [
      'https://docs.google.com/document/d/1',
      'https://drive.google.com/',
      'https://sites.google.com/view/x',
      'https://news.google.com/',
      'https://news.yahoo.com/',
      'https://blog.naver.com/x',
      'https://googleblog.com/',
      'https://blog.google/',
      'https://www.googleadservices.com/',
      'https://google.example.org/',
      'https://bing.com.evil.example/',
      'https://mysearch.example/',
      'https://search.example.com/',
      'https://research.example.com/',
      'https://searchengineland.com/',
      'https://bingo.example/',
    ]);
  });

  test('mail.ru is a portal, e.mail.ru its webmail, go.mail.ru its search engine', () => {
    expect(typeOf('https://mail.ru/')).toBe('referral');
    expect(typeOf('https://e.mail.ru/inbox')).toBe('email');
    expect(typeOf('https://go.mail.ru/search?q=x')).toBe('search');
  });

  test('a webmail host of a search company is email, not search', () => {
    expect(typeOf('https://mail.google.com/')).toBe('email');
    expect(typeOf('https://mail.yandex.com/')).toBe('email');
    expect(typeOf('https://mail.naver.com/')).toBe('email');
  });

  test('look-alikes of webmail hosts are referrals', () => {
    expect(typeOf('https://mail.google.com.evil.example/')).toBe('referral');
    expect(typeOf('https://mywebmail.com/')).toBe('referral');
    expect(typeOf('https://gmail.com/')).toBe('referral');
  });

  test('any other referrer -> referral', () => {
    expectTypes('referral', [
      'https://example.org/a',
      'https://github.com/x/y',
      'https://teams.microsoft.com/',
      'http://192.168.1.1/',
      'http://localhost:3000/',
      'https://xn--bcher-kva.example/',
    ]);
  });
});

describe('the caches answer as a first call does', () => {
  test("a host's cached type yields to our own hosts and to utm_medium, call after call", () => {
    for (let round = 0; round < 3; round++) {
      expect(trafficType('news.example.org', undefined)).toBe('referral');
      expect(trafficType('news.example.org', undefined, ['news.example.org'])).toBe('direct');
      expect(trafficType('news.example.org', 'email')).toBe('email');
      expect(trafficType('l.facebook.com', undefined)).toBe('social');
      expect(trafficType('l.facebook.com', 'cpc')).toBe('search');
    }
  });

  test('a referrer and a language header give the same answer every time', () => {
    for (let round = 0; round < 3; round++) {
      expect(referrerHost('https://WWW.Example.org/a?b')).toBe('example.org');
      expect(referrerHost('ftp://example.org/')).toBeNull();
      expect(referrerHost('not a url')).toBeNull();
      expect(preferredLanguage('fr-ch, fr;q=0.9, en;q=0.8')).toBe('fr-CH');
      expect(preferredLanguage('*')).toBeNull();
    }
  });
});
