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
  /** Options after which nothing is run (`command -v`). */
  noCommand?: readonly string[];
  /** Options that make the command unanalysable (`env -S`). */
  opaque?: readonly string[];
}

const WRAPPERS: Record<string, WrapperSpec> = {
  command: { noCommand: ['-v', '-V'] },
  builtin: {},
  exec: { valueOptions: ['-a'] },
  nohup: {},
  setsid: {},
  time: {},
  busybox: {},
  nice: { valueOptions: ['-n'] },
  ionice: { valueOptions: ['-c', '-n', '-p', '-P', '-u'] },
  timeout: { valueOptions: ['-s', '-k', '--signal', '--kill-after'], positional: 1 },
  stdbuf: { valueOptions: ['-i', '-o', '-e'] },
  env: {
    valueOptions: ['-u', '--unset', '-C', '--chdir'],
    assignments: true,
    opaque: ['-S', '--split-string'],
  },
  sudo: { valueOptions: ['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group'] },
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
  },
  flock: { valueOptions: ['-w', '-E', '--timeout', '--conflict-exit-code'], positional: 1 },
  watch: { valueOptions: ['-n', '--interval', '-d'] },
  chroot: { positional: 1 },
  caffeinate: {},
  unbuffer: {},
};

/**
 * The command a wrapper runs, with its arguments; undefined when `name` is not a wrapper or runs nothing
 * (`command -v rm`). `unanalysable` when the wrapped command cannot be known (`env -S '…'`).
 */
export function unwrapCommand(
  name: string,
  args: WordValue[],
): { inner: WordValue[]; unanalysable?: undefined } | { unanalysable: string } | undefined {
  const spec = WRAPPERS[name];
  if (!spec) return undefined;
  let index = 0;
  let positional = spec.positional ?? 0;
  while (index < args.length) {
    const arg = args[index]!;
    const text = arg.text;
    if (arg.dynamic && text.startsWith(RUNTIME)) {
      if (positional > 0) return { unanalysable: `${name} with arguments built at run time` };
      break;
    }
    if (text === '--') {
      index++;
      break;
    }
    if (spec.noCommand?.includes(text)) return undefined;
    if (spec.opaque?.some((option) => text === option || text.startsWith(`${option}=`)))
      return { unanalysable: `${name} ${text} splits a string into a command` };
    if (text.startsWith('-') && text.length > 1) {
      const option = text.includes('=') ? text.slice(0, text.indexOf('=')) : text;
      index += spec.valueOptions?.includes(option) && !text.includes('=') ? 2 : 1;
      continue;
    }
    if (spec.assignments && /^[A-Za-z_]\w*=/.test(text)) {
      index++;
      continue;
    }
    if (positional > 0) {
      positional--;
      index++;
      continue;
    }
    break;
  }
  const inner = args.slice(index);
  if (inner.length === 0) return undefined;
  if (spec.appendsArguments) inner.push({ text: RUNTIME, dynamic: true, ifs: false, process: false });
  return { inner };
}
