/**
 * /app/settings: the settings pages this account may open, each with what it is for (the
 * Settings entry of the main navigation leads here).
 */
import { SettingsFrame } from '../../components/settings-frame';
import { powersOf } from '../../lib/powers';
import { settingsItemsFor } from '../../nav';
import { useSession } from '../../session';

export function SettingsIndexPage() {
  const { account } = useSession();
  return (
    <SettingsFrame title="Settings">
      <ul class="settings-index">
        {settingsItemsFor(powersOf(account)).map((item) => (
          <li key={item.href}>
            <a href={item.href}>{item.label}</a>
            <p class="hint">{item.about}</p>
          </li>
        ))}
      </ul>
    </SettingsFrame>
  );
}
