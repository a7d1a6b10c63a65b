import { checkSpec, LAUNCHD_LABEL, MARKER, type ServiceSpec, startCommand } from './service-spec.js';

function xml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const string = (value: string) => `<string>${xml(value)}</string>`;

/**
 * The launchd agent for `wren start` (`~/Library/LaunchAgents/local.wren.gateway.plist`): loaded at login
 * (RunAtLoad) and started again when it exits with a failure (KeepAlive, SuccessfulExit false — the same
 * policy as systemd's Restart=on-failure). What the process prints goes to <home>/logs/service.out.log and
 * service.err.log; its log proper is <home>/logs/wren.log, as everywhere.
 */
export function launchdPlist(spec: ServiceSpec): string {
  checkSpec(spec);
  const logs = `${spec.home.replace(/\/+$/, '')}/logs`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- ${xml(MARKER).replace(/--/g, '- -')} Wren ${xml(spec.version)} -->`,
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key> ${string(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...startCommand(spec).map((word) => `    ${string(word)}`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    `    <key>WREN_HOME</key> ${string(spec.home)}`,
    `    <key>PATH</key> ${string(spec.path)}`,
    `    <key>NODE_ENV</key> ${string('production')}`,
    '  </dict>',
    `  <key>WorkingDirectory</key> ${string(spec.home)}`,
    '  <key>RunAtLoad</key> <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key> <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key> <integer>5</integer>',
    `  <key>StandardOutPath</key> ${string(`${logs}/service.out.log`)}`,
    `  <key>StandardErrorPath</key> ${string(`${logs}/service.err.log`)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
