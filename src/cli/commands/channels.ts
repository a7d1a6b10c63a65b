import type { Command } from 'commander';
import { platformConfig, registeredPlatforms } from '../../channels/channels-config.js';
import { installPlatformSdk } from '../../channels/install-platform-sdk.js';
import type { PlatformDescriptor } from '../../channels/platform-descriptor.js';
import { extensionsDir, missingSdkPackages, sdkLocation } from '../../channels/platform-sdk.js';
import { loadConfig } from '../../config/load-config.js';
import type { WrenConfig } from '../../config/wren-config.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';
import { linkChannel, testChannel, unlinkChannel } from './channel-link.js';

const out = (text: string) => process.stdout.write(`${text}\n`);
const say = (text: string) => process.stderr.write(`${text}\n`);

/** One platform as `wren channels list` shows it. */
export interface ChannelListing {
  name: string;
  /** `on`, `off` (a section with enabled: false) or `not configured`; `unknown` when config.yaml is invalid. */
  config: 'on' | 'off' | 'not configured' | 'unknown';
  /** `built in`: no SDK to fetch; `ready`: every SDK package loads; `missing`: `wren channels add NAME` first. */
  sdk: 'built in' | 'ready' | 'missing';
  /** The SDK packages and where each loads from (`bundled`, `installed`, `missing`). */
  packages: Array<{ name: string; version: string; location: string }>;
}

/** Every registered platform: configured or not, and whether its SDK can load. */
export function listChannels(home: string, config: WrenConfig | undefined): ChannelListing[] {
  const dir = extensionsDir(home);
  return registeredPlatforms.map((platform) => {
    const section = config ? platformConfig(config.channels, platform.name) : undefined;
    const packages = Object.entries(platform.sdk ?? {}).map(([name, version]) => ({
      name,
      version,
      location: sdkLocation(name, dir),
    }));
    return {
      name: platform.name,
      config: !config ? 'unknown' : !section ? 'not configured' : section.enabled ? 'on' : 'off',
      sdk:
        packages.length === 0
          ? 'built in'
          : packages.some((pkg) => pkg.location === 'missing')
            ? 'missing'
            : 'ready',
      packages,
    };
  });
}

function readConfig(home: string): WrenConfig | undefined {
  try {
    return loadConfig(home);
  } catch (error) {
    say(`wren: config.yaml could not be read (${(error as Error).message}); showing the SDKs only`);
    return undefined;
  }
}

async function addChannel(home: string, name: string): Promise<void> {
  const platform: PlatformDescriptor | undefined = registeredPlatforms.find((entry) => entry.name === name);
  if (!platform) {
    say(
      `wren: no channel named ${name} (channels: ${registeredPlatforms.map((entry) => entry.name).join(', ')})`,
    );
    process.exitCode = EXIT.usage;
    return;
  }
  const dir = extensionsDir(home);
  const hint = `Configure it under channels.${name} in config.yaml (docs/channels.md); \`${wren()} start\` picks it up.`;
  if (!platform.sdk) {
    out(`The ${name} channel is built in: nothing to install. ${hint}`);
    return;
  }
  if (missingSdkPackages(platform.sdk, dir).length === 0) {
    out(`The ${name} channel's SDK is already available. ${hint}`);
    return;
  }
  out(`Installing the ${name} channel's SDK into ${dir} …`);
  const result = await installPlatformSdk({ dir, packages: platform.sdk });
  if (!result.ok) {
    say(`wren: ${result.error}`);
    say(`To install it by hand: ${result.command}`);
    process.exitCode = EXIT.failed;
    return;
  }
  out(`Installed ${result.installed.join(', ')}. ${hint}`);
}

/**
 * `wren channels list [--json]`, `add NAME`, `link NAME`, `unlink NAME` and `test NAME`. The platform SDKs
 * (Feishu, Slack, Discord, DingTalk, Mattermost, Matrix, WhatsApp) are not part of the package (a clone has
 * them as development dependencies): `add` installs the versions this Wren was tested with into
 * `<home>/extensions`. `link`, `unlink` and `test` talk to the running Wren. Exit codes: 0 ok, 1 failed
 * (the install, the platform, or Wren not running), 2 no such channel or not one that links by device.
 */
export function registerChannelCommands(program: Command, home: () => string): void {
  const group = program
    .command('channels')
    .description(
      'chat platforms: which are configured, install the SDK one needs, link, unlink and test them',
    );
  group
    .command('list', { isDefault: true })
    .description('every chat platform: configured or not, and whether its SDK is installed')
    .option('--json', 'machine-readable output')
    .action((options: { json?: boolean }) => {
      const listing = listChannels(home(), readConfig(home()));
      if (options.json) {
        out(JSON.stringify({ channels: listing }, null, 2));
        return;
      }
      const width = Math.max(...listing.map((entry) => entry.name.length)) + 1;
      for (const entry of listing) {
        const sdk =
          entry.sdk === 'missing'
            ? `SDK not installed: run \`${wren()} channels add ${entry.name}\``
            : `SDK ${entry.sdk}`;
        out(`${entry.name.padEnd(width)} ${entry.config.padEnd(15)} ${sdk}`);
      }
    });
  group
    .command('add <name>')
    .description(
      "install the SDK a chat platform needs (Feishu, Slack, Discord, DingTalk, Mattermost, Matrix, WhatsApp) into the home's extensions folder",
    )
    .action((name: string) => addChannel(home(), name));
  group
    .command('link <name>')
    .description('link a device-linked chat platform (WhatsApp): shows a QR code to scan, or a pairing code')
    .option(
      '--phone <number>',
      'link by pairing code for this phone number (with country code) instead of a QR code',
    )
    .option('--timeout <seconds>', 'give up waiting after this many seconds', '180')
    .action(async (name: string, options: { phone?: string; timeout: string }) => {
      const seconds = Number(options.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        say('wren: --timeout must be a positive number of seconds');
        process.exitCode = EXIT.usage;
        return;
      }
      const stop = new AbortController();
      const onInterrupt = () => stop.abort();
      process.once('SIGINT', onInterrupt);
      try {
        process.exitCode = await linkChannel({
          home: home(),
          name,
          ...(options.phone ? { phone: options.phone } : {}),
          timeoutMs: seconds * 1000,
          signal: stop.signal,
        });
      } finally {
        process.off('SIGINT', onInterrupt);
      }
    });
  group
    .command('unlink <name>')
    .description('log a linked device (WhatsApp) out and forget its session')
    .action(async (name: string) => {
      process.exitCode = await unlinkChannel({ home: home(), name });
    });
  group
    .command('test <name>')
    .description('send yourself a test message on a running chat platform')
    .action(async (name: string) => {
      process.exitCode = await testChannel({ home: home(), name });
    });
}
