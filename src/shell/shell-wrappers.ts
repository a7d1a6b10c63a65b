import { RUNTIME, type WordValue } from './shell-paths.js';

/** How a wrapper program (`sudo`, `env`, `xargs`, `timeout` …) takes the command it runs. */
interface WrapperSpec {
  /** Options that take the next argument as their value. */
  valueOptions?: readonly string[];
  /** Positional arguments before the wrapped command (`timeout 5 cmd`, `chroot DIR cmd`). */
  positional?: number;
  /** Whether `NAME=value` arguments may precede the command (`env`). */
  assignments?: boolean;
  /** The wrapped command also gets arguments only known at run time (`xargs`). */
  appendsArguments?: boolean;
  /** Options after which nothing is run (`command -v`, `taskset -p`). */
  noCommand?: readonly string[];
  /** Options that make the command unanalysable (`env -S`). */
  opaque?: readonly string[];
  /** Options whose value is the wrapped command's working folder (`env -C DIR`, `sudo -D DIR`). */
  chdir?: readonly string[];
  /** Options whose value is a shell command string (`flock -c '…'`, `script -c '…'`). */
  scriptOptions?: readonly string[];
  /** The command's words are joined with spaces and run by `sh -c` (`watch`, `sg`), unless `literal`. */
  joinsArguments?: { literal?: readonly string[] };
  /** Options whose value is a file the wrapper writes (`strace -o FILE`). */
  writeOptions?: readonly string[];
  /** Options that clear the environment (`env -i`, `exec -c`) or unset one variable (`env -u NAME`). */
  clearsEnvironment?: readonly string[];
  unsetOptions?: readonly string[];
  /** Options whose value xargs replaces with each input item (`-I {}`). */
  replaceOptions?: readonly string[];
  /** Without a command string, the positional words are not a command (`script FILE`). */
  onlyScript?: boolean;
}

const TRACE_VALUES = ['-o', '-e', '-s', '-a', '-b', '-E', '-I', '-O', '-P', '-S', '-u', '-X', '-l', '-n'];
const WRAPPERS: Record<string, WrapperSpec> = {
  command: { noCommand: ['-v', '-V'] },
  builtin: {},
  exec: { valueOptions: ['-a'], clearsEnvironment: ['-c'] },
  nohup: {},
  setsid: {},
  time: { valueOptions: ['-f', '--format', '-o', '--output'], writeOptions: ['-o', '--output'] },
  busybox: {},
  nice: { valueOptions: ['-n', '--adjustment'] },
  ionice: { valueOptions: ['-c', '-n', '-p', '-P', '-u'] },
  timeout: { valueOptions: ['-s', '-k', '--signal', '--kill-after'], positional: 1 },
  stdbuf: { valueOptions: ['-i', '-o', '-e'] },
  env: {
    valueOptions: ['-u', '--unset', '-C', '--chdir'],
    assignments: true,
    opaque: ['-S', '--split-string'],
    chdir: ['-C', '--chdir'],
    clearsEnvironment: ['-i', '-', '--ignore-environment'],
    unsetOptions: ['-u', '--unset'],
  },
  sudo: {
    valueOptions: [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-D',
      '-r',
      '-t',
      '-U',
      '-T',
      '--user',
      '--group',
      '--chdir',
    ],
    chdir: ['-D', '--chdir'],
    opaque: ['-R', '--chroot'],
  },
  doas: { valueOptions: ['-u', '-C'] },
  pkexec: { valueOptions: ['--user'] },
  runuser: { valueOptions: ['-u', '-g', '-G', '--user', '--group'] },
  xargs: {
    valueOptions: [
      '-I',
      '-i',
      '-n',
      '-P',
      '-d',
      '-L',
      '-l',
      '-s',
      '-E',
      '-e',
      '-a',
      '--delimiter',
      '--arg-file',
    ],
    appendsArguments: true,
    replaceOptions: ['-I', '-i', '--replace'],
  },
  flock: {
    valueOptions: ['-w', '-E', '--timeout', '--conflict-exit-code', '-c', '--command'],
    positional: 1,
    scriptOptions: ['-c', '--command'],
  },
  watch: {
    valueOptions: ['-n', '--interval', '-q', '--equexit', '--color'],
    joinsArguments: { literal: ['-x', '--exec'] },
  },
  script: {
    valueOptions: ['-c', '--command', '-E', '--echo', '-I', '--log-in', '-O', '--log-out', '-B', '--log-io'],
    scriptOptions: ['-c', '--command'],
    onlyScript: true,
  },
  sg: { positional: 1, scriptOptions: ['-c'], joinsArguments: {} },
  chroot: { positional: 1 },
  caffeinate: {},
  unbuffer: {},
  taskset: { positional: 1, noCommand: ['-p', '--pid', '-pc', '-cp'] },
  chrt: {
    positional: 1,
    valueOptions: ['-T', '-P', '-D', '--sched-runtime', '--sched-period', '--sched-deadline'],
    noCommand: ['-p', '--pid', '-m', '--max'],
  },
  unshare: {
    valueOptions: ['-w', '--wd', '-S', '--setuid', '-G', '--setgid', '--map-user', '--map-group'],
    chdir: ['-w', '--wd'],
    opaque: ['-R', '--root'],
  },
  setpriv: {
    valueOptions: ['--reuid', '--regid', '--groups', '--inh-caps', '--ambient-caps', '--pdeathsig'],
  },
  prlimit: { valueOptions: ['-p', '--pid', '-o', '--output'], noCommand: ['-p', '--pid'] },
  fakeroot: { valueOptions: ['-l', '--lib', '--faked', '-s', '-i', '-b'] },
  strace: { valueOptions: TRACE_VALUES, noCommand: ['-p', '--attach'], writeOptions: ['-o', '--output'] },
  ltrace: { valueOptions: TRACE_VALUES, noCommand: ['-p'], writeOptions: ['-o', '--output'] },
  valgrind: { writeOptions: ['--log-file', '--xml-file'] },
  'systemd-inhibit': { valueOptions: ['--what', '--who', '--why', '--mode'] },
  'dbus-run-session': { valueOptions: ['--config-file'], opaque: ['--dbus-daemon'] },
  numactl: { valueOptions: ['-C', '-N', '-m', '-p', '-i', '--physcpubind', '--cpunodebind', '--membind'] },
  sshpass: { valueOptions: ['-p', '-f', '-d', '-P'] },
};

/** What a wrapper runs, and what it does besides. */
export type Unwrapped =
  | {
      inner: WordValue[];
      /** The working folder the command runs in (`env -C DIR`). */
      chdir?: WordValue;
      /** Files the wrapper itself writes (`strace -o FILE`). */
      writes: WordValue[];
      /** It clears the environment (`env -i`), or these variables (`env -u NAME`). */
      clearsEnvironment: boolean;
      unsets: string[];
    }
  /** The wrapper runs a shell command string (`flock -c '…'`, `watch 'cmd args'`). */
  | { script: WordValue; where: string; chdir?: WordValue }
  | { unanalysable: string };

interface Scan {
  index: number;
  positional: number;
  result: Extract<Unwrapped, { inner: WordValue[] }>;
  script?: WordValue;
  replace?: string;
  literal: boolean;
}

/**
 * The command a wrapper runs, with its arguments; undefined when `name` is not a wrapper or runs nothing
 * (`command -v rm`). `unanalysable` when the wrapped command cannot be known (`env -S '…'`).
 */
export function unwrapCommand(name: string, args: WordValue[]): Unwrapped | undefined {
  const spec = WRAPPERS[name];
  if (!spec) return undefined;
  const scan: Scan = {
    index: 0,
    positional: spec.positional ?? 0,
    result: { inner: [], writes: [], clearsEnvironment: false, unsets: [] },
    literal: false,
  };
  while (scan.index < args.length) {
    const step = option(spec, name, args, scan);
    if (step === 'stop') break;
    if (step !== 'next') return step;
  }
  const chdir = scan.result.chdir;
  if (scan.script) return { script: scan.script, where: `${name} -c`, ...(chdir ? { chdir } : {}) };
  const inner = args.slice(scan.index);
  if (inner.length === 0 || spec.onlyScript) return undefined;
  if (spec.joinsArguments && !scan.literal) {
    const text = inner.map((word) => word.text).join(' ');
    const joined = { text, dynamic: inner.some((word) => word.dynamic), ifs: false, process: false };
    return { script: joined, where: name, ...(chdir ? { chdir } : {}) };
  }
  if (scan.replace !== undefined) {
    const marker = scan.replace;
    scan.result.inner = inner.map((word) =>
      word.text.includes(marker)
        ? { ...word, text: word.text.replaceAll(marker, RUNTIME), dynamic: true }
        : word,
    );
  } else scan.result.inner = inner;
  if (spec.appendsArguments && scan.replace === undefined)
    scan.result.inner.push({ text: RUNTIME, dynamic: true, ifs: false, process: false });
  return scan.result;
}

/** Reads one wrapper argument: 'next' to go on, 'stop' at the command, or the final answer. */
function option(
  spec: WrapperSpec,
  name: string,
  args: WordValue[],
  scan: Scan,
): 'next' | 'stop' | Unwrapped | undefined {
  const arg = args[scan.index]!;
  const text = arg.text;
  if (arg.dynamic && text.startsWith(RUNTIME)) {
    if (scan.positional > 0) return { unanalysable: `${name} with arguments built at run time` };
    return 'stop';
  }
  if (text === '--') {
    scan.index++;
    return 'stop';
  }
  const flag = flagEffect(spec, name, text, scan);
  if (flag !== 'next') return flag;
  if (text === '-' && spec.clearsEnvironment?.includes('-')) {
    scan.index++;
    return 'next';
  }
  if (text.startsWith('-') && !text.startsWith('--') && text.length > 2)
    return shortCluster(spec, args, scan);
  if (text.startsWith('-') && text.length > 1) {
    const equals = text.indexOf('=');
    const key = equals === -1 ? text : text.slice(0, equals);
    const takes = spec.valueOptions?.includes(key) && equals === -1;
    const value =
      equals !== -1 ? { ...arg, text: text.slice(equals + 1) } : takes ? args[scan.index + 1] : undefined;
    if (value) optionValue(spec, key, value, scan);
    scan.index += takes ? 2 : 1;
    return 'next';
  }
  if (spec.assignments && /^[A-Za-z_]\w*=/.test(text)) {
    scan.index++;
    return 'next';
  }
  if (scan.positional > 0) {
    scan.positional--;
    scan.index++;
    return 'next';
  }
  return 'stop';
}

/** What an option does by itself (ends the command, makes it opaque, clears the environment). */
function flagEffect(
  spec: WrapperSpec,
  name: string,
  text: string,
  scan: Scan,
): 'next' | Unwrapped | undefined {
  const key = text.includes('=') ? text.slice(0, text.indexOf('=')) : text;
  const cluster = !text.startsWith('--') && text.length > 2 && text.startsWith('-') ? [...text.slice(1)] : [];
  const names = [key, ...cluster.map((letter) => `-${letter}`)];
  if (names.some((known) => spec.noCommand?.includes(known))) return undefined;
  if (names.some((known) => spec.opaque?.includes(known)))
    return { unanalysable: `${name} ${text} runs a command Wren cannot analyse` };
  if (names.some((known) => spec.clearsEnvironment?.includes(known))) scan.result.clearsEnvironment = true;
  if (spec.joinsArguments?.literal?.includes(key)) scan.literal = true;
  return 'next';
}

/** `-qc CMD`, `-I{}`, `-P0`: letters until one that takes a value (the rest of the cluster, or the next word). */
function shortCluster(spec: WrapperSpec, args: WordValue[], scan: Scan): 'next' {
  const arg = args[scan.index]!;
  for (let at = 1; at < arg.text.length; at++) {
    const key = `-${arg.text[at]}`;
    if (!spec.valueOptions?.includes(key)) continue;
    const rest = arg.text.slice(at + 1);
    const value = rest !== '' ? { ...arg, text: rest } : args[scan.index + 1];
    if (value) optionValue(spec, key, value, scan);
    scan.index += rest !== '' ? 1 : 2;
    return 'next';
  }
  scan.index++;
  return 'next';
}

function optionValue(spec: WrapperSpec, key: string, value: WordValue, scan: Scan): void {
  if (spec.chdir?.includes(key)) scan.result.chdir = value;
  if (spec.scriptOptions?.includes(key)) scan.script = value;
  if (spec.writeOptions?.includes(key)) scan.result.writes.push(value);
  if (spec.unsetOptions?.includes(key)) scan.result.unsets.push(value.text);
  if (spec.replaceOptions?.includes(key)) scan.replace = value.text;
}

/** Whether `name` is a wrapper that runs the command given after its own options. */
export function isWrapper(name: string): boolean {
  return name in WRAPPERS;
}
