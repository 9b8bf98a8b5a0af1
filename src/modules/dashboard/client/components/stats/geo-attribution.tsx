/**
 * The credit the bundled geolocation database's licence (CC BY 4.0) asks for, shown wherever
 * countries or cities are: the words and the link are the ones DB-IP prescribes.
 */
export function GeoAttribution() {
  return (
    <p class="attribution">
      <a href="https://db-ip.com">IP Geolocation by DB-IP</a>
    </p>
  );
}
