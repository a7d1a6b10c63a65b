import { withHome } from '../../app-home.js';
import { rotateGatewayToken } from '../../gateway/gateway-token.js';
import { SettingsRepository } from '../../store/settings-repository.js';
import { EXIT } from '../report-failure.js';

/** `wren token --rotate`: a new gateway token, printed once. A running gateway accepts only the new one from now on. */
export async function runTokenRotate(options: { home: string }): Promise<number> {
  return withHome(options.home, (opened) => {
    const token = rotateGatewayToken(new SettingsRepository(opened.db()));
    process.stdout.write(`${token.generated}\n`);
    process.stderr.write(
      'New gateway token above (shown once); the old one no longer works. (A token set in config or WREN_GATEWAY_TOKEN takes precedence.)\n',
    );
    return EXIT.ok;
  });
}
