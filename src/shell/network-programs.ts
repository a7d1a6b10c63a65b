import type { WordValue } from './shell-paths.js';

/** Programs that reach the network whatever their arguments; an `exec` call running one may send data off. */
const NETWORK_PROGRAMS = new Set([
  ...['dig', 'host', 'nslookup', 'drill', 'ping', 'ping6', 'curl', 'wget', 'wget2', 'ssh', 'scp', 'sftp'],
  ...['rsync', 'telnet', 'ftp', 'lftp', 'tftp', 'socat', 'http', 'https', 'xh', 'xhs', 'aria2c', 'axel'],
  ...['whois', 'ssh-keyscan', 'traceroute', 'traceroute6', 'tracepath', 'mtr', 'arping', 'nmap', 'mosh'],
  ...['gh', 'hub', 'mail', 'mailx', 's-nail', 'sendmail', 'msmtp', 'ssmtp', 'mutt', 'swaks', 'xdg-open'],
  ...['sensible-browser', 'x-www-browser', 'www-browser', 'lynx', 'w3m', 'links', 'elinks', 'rclone'],
  ...['smbclient', 'aws', 'gcloud', 'gsutil', 'az', 'kubectl', 'helm', 'skopeo', 'websocat', 'wscat'],
  ...['yt-dlp', 'youtube-dl', 'pipx', 'gem', 'brew', 'conda', 'mamba', 'huggingface-cli', 'apt', 'apt-get'],
  ...['sshpass', 'autossh', 'sshfs', 'rdesktop', 'xfreerdp', 'vncviewer', 'irssi', 'weechat', 'newsboat'],
]);
/** netcat under any of its names (`nc.openbsd`, `ncat`, `netcat-traditional`). */
const NETCAT = /^(nc|ncat|netcat)([.-].*)?$/;
/** Subcommands that reach the network, by program. */
const NETWORK_SUBCOMMANDS: Record<string, RegExp> = {
  openssl: /^(s_client|s_time|ocsp)$/,
  getent: /^(hosts|ahosts|ahostsv4|ahostsv6)$/,
  docker: /^(pull|push|login|search|run|create|build|compose|buildx)$/,
  podman: /^(pull|push|login|search|run|create|build)$/,
  pip: /^(install|download|search|wheel)$/,
  pip3: /^(install|download|search|wheel)$/,
  busybox: /^(nc|wget|ftpget|ftpput|telnet|ping|nslookup|udhcpc|ssl_client|whois)$/,
  resolvectl: /^(query|openpgp|tlsa|service)$/,
};
/** git subcommands that reach the network (`remote update`, `submodule update`, `lfs pull` …). */
const GIT_NETWORK =
  /^(push|pull|fetch|clone|ls-remote|send-email|request-pull|svn|p4|fetch-pack|send-pack|daemon|instaweb|http-fetch)$/;

/** Whether running `name` with `args` (after its global options) reaches the network. */
export function reachesNetwork(
  name: string,
  args: WordValue[],
  gitSubcommand?: string,
  gitRest?: WordValue[],
): boolean {
  if (NETWORK_PROGRAMS.has(name) || NETCAT.test(name)) return true;
  if (name === 'git') {
    const next = gitRest?.[0]?.text;
    if (GIT_NETWORK.test(gitSubcommand ?? '')) return true;
    if (gitSubcommand === 'remote' && /^(update|show|prune|set-head)$/.test(next ?? '')) return true;
    if (gitSubcommand === 'submodule' && /^(update|add|sync|foreach)$/.test(next ?? '')) return true;
    if (gitSubcommand === 'lfs' && /^(pull|push|fetch|clone)$/.test(next ?? '')) return true;
    return gitSubcommand === 'archive' && (gitRest ?? []).some((arg) => arg.text.startsWith('--remote'));
  }
  const subcommands = NETWORK_SUBCOMMANDS[name];
  if (!subcommands) return false;
  const first = args.find((arg) => !arg.text.startsWith('-'))?.text ?? '';
  return subcommands.test(first) || (name === 'docker' && first === 'image');
}

/**
 * The host an argument reaches: a URL's authority (it ends at the first `/`, `?` or `#`, so
 * `https://evil.example?x#@api.github.com` is evil.example), `git@host:…`, `user@host:path`.
 */
export function hostOf(text: string): string | undefined {
  const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]+\]|[^/:?#@]+)/i.exec(text);
  if (url) return url[1]!.toLowerCase();
  const scp = /^[\w.-]+@([\w.-]+):/.exec(text);
  return scp ? scp[1]!.toLowerCase() : undefined;
}

/** Options whose value names a host to connect through (a proxy, an address to use instead). */
const HOST_OPTIONS = /^(-x|--proxy|--preproxy|--socks4a?|--socks5(-hostname)?|--resolve|--connect-to)$/;

/**
 * The hosts one argument names: a URL or `user@host:`, the value of `--opt=URL`, and the value after a
 * proxy or address option (`-x host:port`, `--resolve name:port:addr`, `--connect-to ::host:`). `previous`
 * is the argument before it.
 */
export function hostsIn(arg: WordValue, previous: WordValue | undefined): string[] {
  if (arg.dynamic) return [];
  const hosts = new Set<string>();
  const add = (value: string, fields: boolean) => {
    const url = hostOf(value);
    if (url) hosts.add(url);
    else if (fields) for (const host of hostFields(value)) hosts.add(host);
  };
  add(arg.text, previous !== undefined && HOST_OPTIONS.test(previous.text));
  const option = /^(--?[\w-]+)=(.+)$/.exec(arg.text);
  if (option) add(option[2]!, HOST_OPTIONS.test(option[1]!));
  return [...hosts];
}

/** Host names and addresses among `:`-separated fields (`api.x:443:203.0.113.9`, `proxy.example:8080`). */
function hostFields(value: string): string[] {
  return value
    .split(/[:,]/)
    .filter((field) => /^(\d{1,3}(\.\d{1,3}){3}|[a-z0-9-]+(\.[a-z0-9-]+)+)$/i.test(field))
    .map((field) => field.toLowerCase());
}

/** Proxy variables: their value is where every request goes. */
export const PROXY_VARIABLES =
  /^(https?_proxy|ftp_proxy|all_proxy|no_proxy|HTTPS?_PROXY|FTP_PROXY|ALL_PROXY|NO_PROXY)$/;
