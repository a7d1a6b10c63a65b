import { EXIT } from '../report-failure.js';
import { withServices } from '../with-services.js';

/** `wren token --rotate`: a new gateway token, printed once. A running gateway accepts only the new one from now on. */
export async function runTokenRotate(options: { home: string }): Promise<number> {
  return withServices(options.home, (services) => {
    process.stdout.write(`${services.gatewayToken.rotate()}\n`);
    process.stderr.write(
      'New gateway token above (shown once); the old one no longer works. (A token set in config or WREN_GATEWAY_TOKEN takes precedence.)\n',
    );
    return EXIT.ok;
  });
}
