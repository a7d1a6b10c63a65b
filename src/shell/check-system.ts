import type { RuleHost } from './rule-host.js';
import { evaluateWord, type WordValue } from './shell-paths.js';
import type { SimpleCommand } from './shell-script.js';

const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const DISK_FORMAT = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs)$/;
/** Programs that change partitions, mounts, file system attributes, kernel modules, firewall or swap. */
const DISK_OR_KERNEL = new Set([
  ...['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'partprobe', 'chattr', 'mount', 'umount'],
  ...['losetup', 'modprobe', 'insmod', 'rmmod', 'depmod', 'iptables', 'ip6tables', 'iptables-restore'],
  ...['ip6tables-restore', 'nft', 'ufw', 'swapoff', 'swapon', 'sysctl', 'cryptsetup', 'mdadm', 'dmsetup'],
  ...['pvcreate', 'pvremove', 'vgcreate', 'vgremove', 'lvcreate', 'lvremove', 'lvresize', 'hdparm'],
  ...['blkdiscard', 'kexec', 'tune2fs', 'resize2fs', 'e2fsck', 'fsck', 'debugfs', 'zpool', 'zfs'],
  ...['setenforce', 'grub-install', 'update-grub', 'efibootmgr', 'update-initramfs'],
]);
/** Calls of those programs that only show state (`mount` alone, `fdisk -l`, `sysctl kernel.x`). */
function onlyShows(name: string, args: WordValue[]): boolean {
  const texts = args.map((arg) => arg.text);
  if (name === 'mount') return texts.every((text) => /^(-l|-t|--types|[a-z0-9,]+)$/.test(text));
  if (name === 'fdisk' || name === 'sfdisk' || name === 'parted')
    return texts.some((text) => /^(-l|--list|-d|--dump)$/.test(text));
  if (name === 'sysctl')
    return !texts.some((text) => /^(-w|--write|-p|--load|--system)/.test(text) || text.includes('='));
  if (name === 'swapon') return texts.some((text) => /^(-s|--show|--summary)$/.test(text));
  return false;
}
/** systemctl verbs that only show state. */
const SYSTEMCTL_SHOWS =
  /^(status|show|cat|list-\w+|is-active|is-enabled|is-failed|is-system-running|help|get-default)$/;
const TRACERS = new Set(['gdb', 'strace', 'ltrace']);

/**
 * Rules about the machine rather than files: power, disks and the kernel, scheduled jobs, services,
 * killing every process, and reading other processes' environment or memory.
 */
export function checkSystem(host: RuleHost, name: string, args: WordValue[]): void {
  const texts = args.map((arg) => arg.text);
  if (DISK_FORMAT.test(name)) host.flag(`formats a disk (${name})`);
  if (DISK_OR_KERNEL.has(name) && !onlyShows(name, args)) host.flag(`changes disks or the kernel (${name})`);
  if (POWER.has(name)) host.flag(`shuts down or reboots the machine (${name})`);
  if ((name === 'init' || name === 'telinit') && /^[06]$/.test(texts[0] ?? ''))
    host.flag(`shuts down or reboots the machine (${name} ${texts[0]})`);
  if (name === 'kill' && texts.length > 1 && texts.at(-1) === '-1')
    host.flag('kills every process (kill -1)');
  scheduledJobs(host, name, texts);
  services(host, name, texts);
  killsWren(host, name, args);
  if (name === 'ps' && psEnvironment(texts)) host.flag('reads a process environment (ps e)');
  debuggers(host, name, texts);
  const unbounded =
    (name === 'xargs' && /(^|\s)(-P\s*0|--max-procs[=\s]0)(\s|$)/.test(texts.join(' '))) ||
    (name === 'parallel' && /(^|\s)(-j\s*0|--jobs[=\s]0|-P\s*0)(\s|$)/.test(texts.join(' ')));
  if (unbounded) host.flag(`unbounded parallel processes (${name})`);
}

/** ps options that take a value (the word after them is not a BSD option cluster). */
const PS_VALUES =
  /^(-[oOpqCuUgGtsk]|--(sort|format|pid|ppid|cols|columns|rows|width|lines|user|group|tty|sid|quick-pid))$/;

/** A BSD-style option cluster (no dash) with `e` anywhere adds each process's environment to the listing. */
function psEnvironment(texts: string[]): boolean {
  for (let index = 0; index < texts.length; index++) {
    const text = texts[index]!;
    if (PS_VALUES.test(text)) index++;
    else if (/^[a-zA-Z]*e[a-zA-Z]*$/.test(text)) return true;
  }
  return false;
}

/** Names and command lines Wren itself runs as, for `pkill`/`killall` patterns. */
const WREN_NAMES = ['node', 'wren'];
const WREN_LINES = ['node /usr/lib/node_modules/wren/dist/cli.js start', 'wren start'];

/** `kill $PPID`, `pkill -f wren`, `killall node`: Wren itself; `pkill -u USER`: every process the user runs. */
function killsWren(host: RuleHost, name: string, args: WordValue[]): void {
  if (name === 'kill' && args.some((arg) => mentions(arg, 'PPID')))
    host.flag('kills Wren itself (kill $PPID)');
  if (name !== 'pkill' && name !== 'killall') return;
  const texts = args.map((arg) => arg.text);
  if (texts.some((text) => /^(-u|--user|-U|--uid)(=|$)|^-u./.test(text)))
    host.flag(`kills every process (${name} -u)`);
  const full = texts.some((text) => /^-[a-zA-Z]*f|^--full$/.test(text));
  const regex = name === 'pkill' || texts.some((text) => /^(-r|--regexp)$/.test(text));
  const patterns = args.filter(
    (arg, index) => !arg.text.startsWith('-') && !/^-[uUgGPstn]$/.test(texts[index - 1] ?? ''),
  );
  for (const pattern of patterns) {
    const subjects = full ? WREN_LINES : WREN_NAMES;
    const hits = pattern.dynamic || subjects.some((subject) => matches(pattern.text, subject, regex));
    if (hits) host.flag(`kills Wren itself (${name} ${pattern.text.replaceAll('\u0001', '$…')})`);
  }
}

function matches(pattern: string, subject: string, regex: boolean): boolean {
  if (!regex) return pattern === subject;
  try {
    return new RegExp(pattern).test(subject);
  } catch {
    return true;
  }
}

function mentions(arg: WordValue, name: string): boolean {
  return (arg.source?.parts ?? []).some((part) => part.type === 'param' && part.name === name);
}

/** Debuggers attached to a process read its memory; commands given to them can do anything. */
function debuggers(host: RuleHost, name: string, texts: string[]): void {
  if (name !== 'gcore' && name !== 'gdb' && name !== 'lldb' && !TRACERS.has(name)) return;
  const attaches =
    name === 'gcore' ||
    (TRACERS.has(name) && texts.some((text) => /^(-p|--pid|-p\d+|--pid=.*)$/.test(text))) ||
    (name === 'gdb' && texts.some((text) => /^(attach|\d+)$/.test(text))) ||
    (name === 'lldb' &&
      texts.some((text) => /^(-p|--attach-pid|-n|--attach-name|-w|--wait-for)(=|$)/.test(text)));
  if (attaches) host.flag(`reads process memory (${name})`);
  const runs =
    (name === 'gdb' &&
      texts.some((text) => /^(-ex|--eval-command|-x|--command|-iex|-ix|--init-command)(=|$)/.test(text))) ||
    (name === 'lldb' && texts.some((text) => /^(-o|--one-line|-s|--source|-O|-S|-k)(=|$)/.test(text)));
  if (runs) host.cannot(`${name} running debugger commands`);
}

const ENDLESS = /^\/dev\/(zero|u?random)$/;
const WRITES = /^(>|>>|>\||&>|&>>)$/;

/** Endless output (`yes`, `/dev/zero`) written to a file rather than a pipe fills the disk. */
export function checkDiskFill(host: RuleHost, name: string, args: WordValue[], command: SimpleCommand): void {
  const reads = [
    ...args.map((arg) => arg.text),
    ...command.redirects.filter((r) => r.op === '<').map((r) => evaluateWord(r.target).text),
  ];
  const endless =
    name === 'yes' ||
    (/^(cat|tac|tr|base64|od|xxd|hexdump|strings)$/.test(name) && reads.some((text) => ENDLESS.test(text)));
  if (!endless || command.pipesOut) return;
  for (const redirect of command.redirects) {
    const target = evaluateWord(redirect.target).text;
    if (WRITES.test(redirect.op) && !target.startsWith('/dev/'))
      host.flag(`fills the disk (${name} > ${target})`);
  }
}

function scheduledJobs(host: RuleHost, name: string, texts: string[]): void {
  if (name === 'crontab') {
    if (texts.some((text) => /^-[a-zA-Z]*[lT]/.test(text))) return;
    if (texts.some((text) => /^-[a-zA-Z]*r/.test(text))) host.flag('removes scheduled jobs (crontab -r)');
    else host.flag('installs a scheduled job (crontab)');
  } else if (name === 'at' || name === 'batch') {
    if (texts.some((text) => /^-[lc]$/.test(text))) return;
    if (texts.some((text) => /^-[rd]$/.test(text))) host.flag(`removes scheduled jobs (${name} -r)`);
    else host.flag(`installs a scheduled job (${name})`);
  } else if (name === 'atrm') host.flag('removes scheduled jobs (atrm)');
}

function services(host: RuleHost, name: string, texts: string[]): void {
  const verb = texts.find((text) => !text.startsWith('-'));
  if (name === 'systemctl') {
    if (texts.some((text) => /^(poweroff|reboot|halt|kexec)$/.test(text)))
      host.flag('shuts down or reboots the machine (systemctl)');
    else if (verb && !SYSTEMCTL_SHOWS.test(verb))
      host.flag(`changes a service (systemctl${texts.includes('--user') ? ' --user' : ''} ${verb})`);
  } else if (name === 'systemd-run') host.flag('changes a service (systemd-run)');
  else if (name === 'service' && texts.length > 1 && texts[1] !== 'status')
    host.flag(`changes a service (service ${texts[1]})`);
  else if (name === 'launchctl' && verb && !/^(list|print|help|version)$/.test(verb))
    host.flag(`changes a service (launchctl ${verb})`);
  else if (name === 'loginctl' && verb === 'enable-linger')
    host.flag('changes a service (loginctl enable-linger)');
  else if (/^(busctl|gdbus|dbus-send|qdbus)$/.test(name) && texts.some((text) => /systemd1/.test(text)))
    host.flag(`changes a service (${name} systemd)`);
}
