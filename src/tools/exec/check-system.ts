import type { RuleHost } from './rule-host.js';
import type { WordValue } from './shell-paths.js';

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
  // BSD-style options (no dash, first) with `e` add each process's environment to the listing.
  if (name === 'ps' && /^[a-zA-Z]*e[a-zA-Z]*$/.test(texts[0] ?? ''))
    host.flag('reads a process environment (ps e)');
  if (
    name === 'gcore' ||
    (TRACERS.has(name) && texts.some((text) => /^(-p|--pid|-p\d+|--pid=.*)$/.test(text)))
  )
    host.flag(`reads process memory (${name})`);
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
}
