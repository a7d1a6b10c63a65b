import { checkSpec, MARKER, type ServiceSpec, startCommand } from './service-spec.js';

/**
 * Quotes one word for a unit file: double quotes with C-style escapes, `%` doubled (systemd's specifiers) and,
 * in command lines, `$` doubled (systemd's variable expansion).
 */
export function systemdQuote(value: string, command = false): string {
  let escaped = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');
  if (command) escaped = escaped.replace(/\$/g, '$$$$');
  return `"${escaped}"`;
}

/**
 * The systemd unit for `wren start`: a user unit (`~/.config/systemd/user/wren.service`, wanted by
 * default.target), or with `user` a system unit run as that user (wanted by multi-user.target). It restarts
 * on failure only: a clean stop (`systemctl stop`, SIGTERM) stays stopped. Logs go to the gateway's own
 * rotated file (<home>/logs/wren.log); what the process prints (start-up errors) goes to the journal.
 */
export function systemdUnit(spec: ServiceSpec, options: { user?: string } = {}): string {
  checkSpec(spec);
  if (options.user !== undefined && !/^[a-z_][a-z0-9_.-]*\$?$/i.test(options.user)) {
    throw new Error(`not a valid user name for User=: ${JSON.stringify(options.user)}`);
  }
  const environment = (name: string, value: string) => `Environment=${systemdQuote(`${name}=${value}`)}`;
  return [
    `# ${MARKER}`,
    `# Wren ${spec.version}`,
    '[Unit]',
    'Description=Wren, a self-hosted personal AI assistant',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    ...(options.user ? [`User=${options.user}`] : []),
    environment('WREN_HOME', spec.home),
    environment('PATH', spec.path),
    environment('NODE_ENV', 'production'),
    // WorkingDirectory takes the rest of the line as the path, unquoted (only specifiers are expanded).
    `WorkingDirectory=${spec.home.replace(/%/g, '%%')}`,
    `ExecStart=${startCommand(spec)
      .map((word) => systemdQuote(word, true))
      .join(' ')}`,
    'Restart=on-failure',
    'RestartSec=5',
    'TimeoutStopSec=30',
    '',
    '[Install]',
    `WantedBy=${options.user ? 'multi-user.target' : 'default.target'}`,
    '',
  ].join('\n');
}
