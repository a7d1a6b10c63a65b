import type { DescribeEffects, FileEffects } from './file-effect-types.js';
import { hasOption, optionValues, type ParsedArguments, parseOptions } from './parse-options.js';
import { literalValue, type WordValue } from './shell-paths.js';

const TAR_VALUES = [
  ...['f', 'C', 'T', 'X', 'I', 'F', 'g', 'K', 'L', 'N', 'V', 'b', 'H'],
  ...['file', 'directory', 'files-from', 'exclude-from', 'use-compress-program', 'info-script'],
  ...['new-volume-script', 'listed-incremental', 'starting-file', 'tape-length', 'newer', 'after-date'],
  ...['label', 'blocking-factor', 'format', 'exclude', 'transform', 'xform', 'owner', 'group', 'mode'],
  ...['mtime', 'to-command', 'checkpoint-action', 'rmt-command', 'rsh-command', 'index-file', 'suffix'],
  ...['strip-components', 'volno-file', 'record-size'],
];
const TAR_OLD_STYLE_VALUES = 'fCTXIFgKLNVbH';
/** Options that make tar run a program it names. */
const TAR_RUNS = ['to-command', 'info-script', 'F', 'new-volume-script', 'rmt-command', 'rsh-command'];
const COMPRESSORS = /^(gzip|gunzip|bzip2|xz|zstd|lz4|lzip|lzma|lzop|pigz|pbzip2|pixz|plzip|brotli)(\s|$)/;
const RSYNC_VALUES = [
  ...['e', 'rsh', 'rsync-path', 'f', 'filter', 'exclude', 'include', 'exclude-from', 'include-from'],
  ...['files-from', 'log-file', 'backup-dir', 'partial-dir', 'T', 'temp-dir', 'password-file', 'chmod'],
  ...['chown', 'B', 'block-size', 'compare-dest', 'copy-dest', 'link-dest', 'out-format', 'max-size'],
  ...['min-size', 'timeout', 'port', 'bwlimit', 'suffix', 'iconv', 'usermap', 'groupmap', 'contimeout'],
  ...['sockopts', 'outbuf', 'M', 'remote-option', 'info', 'debug', 'max-delete', 'skip-compress'],
  ...['log-file-format', 'write-batch', 'only-write-batch', 'read-batch', 'address', 'modify-window'],
];
const CURL_VALUES = [
  ...['o', 'output', 'output-dir', 'D', 'dump-header', 'c', 'cookie-jar', 'trace', 'trace-ascii'],
  ...['stderr', 'libcurl', 'K', 'config', 'T', 'upload-file', 'd', 'data', 'data-binary', 'data-raw'],
  ...['data-ascii', 'data-urlencode', 'json', 'F', 'form', 'form-string', 'H', 'header', 'u', 'user'],
  ...['A', 'user-agent', 'e', 'referer', 'x', 'proxy', 'U', 'proxy-user', 'X', 'request', 'b', 'cookie'],
  ...['E', 'cert', 'key', 'cacert', 'capath', 'm', 'max-time', 'connect-timeout', 'retry', 'w'],
  ...['write-out', 'r', 'range', 'C', 'continue-at', 'Y', 'y', 'z', 'Q', 'quote', 'interface'],
  ...['resolve', 'connect-to', 'limit-rate', 'max-filesize', 'max-redirs', 'netrc-file', 'url'],
];
const WGET_VALUES = [
  ...['O', 'output-document', 'o', 'output-file', 'a', 'append-output', 'P', 'directory-prefix', 'i'],
  ...['input-file', 'post-file', 'body-file', 'post-data', 'load-cookies', 'save-cookies', 'U'],
  ...['user-agent', 'header', 'e', 'execute', 't', 'tries', 'T', 'timeout', 'w', 'wait', 'Q', 'quota'],
  ...['l', 'level', 'A', 'accept', 'R', 'reject', 'D', 'domains', 'X', 'I', 'user', 'password', 'B'],
];
const SORT_VALUES = ['o', 'k', 't', 'S', 'T', 'output', 'key', 'field-separator', 'buffer-size'];

/** Output paths that are not a file (`-` is standard output). */
function files(values: WordValue[]): WordValue[] {
  return values.filter((value) => value.text !== '-');
}

/** `operand` as seen from `folder` (`tar -C DIR name`). */
export function from(folder: WordValue | undefined, operand: WordValue): WordValue {
  if (!folder || /^[/~]/.test(operand.text)) return operand;
  return {
    ...operand,
    text: `${folder.text}/${operand.text}`,
    dynamic: folder.dynamic || operand.dynamic,
    glob: folder.glob === true || operand.glob === true,
  };
}

/** tar's old-style first argument (`czf out.tgz dir`): each letter that takes a value takes the next word. */
function tarArguments(args: WordValue[]): WordValue[] {
  const [first, ...rest] = args;
  if (!first || !/^[A-Za-z]+$/.test(first.text)) return args;
  const expanded: WordValue[] = [];
  for (const letter of first.text) {
    expanded.push({ ...first, text: `-${letter}` });
    if (TAR_OLD_STYLE_VALUES.includes(letter) && rest.length > 0) expanded.push(rest.shift()!);
  }
  return [...expanded, ...rest];
}

function tarRunsProgram(parsed: ParsedArguments, effects: FileEffects): void {
  for (const option of TAR_RUNS)
    if (hasOption(parsed, option)) effects.unanalysable.push(`tar --${option} runs a command`);
  for (const program of optionValues(parsed, 'I', 'use-compress-program'))
    if (!COMPRESSORS.test(program.text)) effects.unanalysable.push('tar runs a compression program it names');
  if (optionValues(parsed, 'checkpoint-action').some((value) => /^(exec|shell)/.test(value.text)))
    effects.unanalysable.push('tar --checkpoint-action runs a command');
}

function tar(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(tarArguments(args), TAR_VALUES);
  tarRunsProgram(parsed, effects);
  const archives = files(optionValues(parsed, 'f', 'file'));
  const folder = optionValues(parsed, 'C', 'directory').at(-1);
  const members = parsed.operands.map((operand) => from(folder, operand));
  if (hasOption(parsed, 'c', 'create', 'r', 'append', 'u', 'update', 'A', 'catenate', 'concatenate')) {
    effects.writes.push(...archives);
    effects.recursiveReads.push(...members);
  } else if (hasOption(parsed, 'x', 'extract', 'get')) {
    // Named members land under the folder; otherwise the archive decides the names.
    if (members.length > 0) effects.writes.push(...members, ...(folder ? [folder] : []));
    else effects.unpacks.push(folder ?? literalValue('.'));
    if (hasOption(parsed, 'P', 'absolute-names'))
      effects.unanalysable.push('tar -P extracts to absolute paths');
  } else if (hasOption(parsed, 'delete')) effects.writes.push(...archives);
  if (hasOption(parsed, 'remove-files'))
    for (const value of members) effects.deletes.push({ value, verb: 'recursive delete' });
}

/** `zip [options] ARCHIVE [files]`: options take the next word (`-b DIR`) or a list (`-x a b`). */
function zip(args: WordValue[], effects: FileEffects): void {
  let recursive = false;
  let moves = false;
  const operands: WordValue[] = [];
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (text === '-TT' || text.startsWith('--unzip-command'))
      effects.unanalysable.push('zip -TT runs a command');
    if (/^-(b|n|t|tt|O|P|s|sp|Z|ds|dg|ic|TT|-temp-path|-output-file)$/.test(text)) {
      const value = args[++index];
      if (value && (text === '-O' || text === '--output-file')) effects.writes.push(value);
    } else if (/^-[xi]$/.test(text)) {
      while (index + 1 < args.length && !args[index + 1]!.text.startsWith('-')) index++;
    } else if (text.startsWith('-') && text !== '-') {
      recursive ||= /^-[a-zA-Z]*[rR]/.test(text) || /^--recurse-(paths|patterns)$/.test(text);
      moves ||= /^-[a-zA-Z]*m/.test(text) || text === '--move';
    } else operands.push(args[index]!);
  }
  const [archive, ...inputs] = operands;
  if (archive) effects.writes.push(archive);
  if (recursive) effects.recursiveReads.push(...inputs);
  if (moves) for (const value of inputs) effects.deletes.push({ value, verb: 'recursive delete' });
}

/** `unzip ARCHIVE [members] [-x excluded] [-d DIR]`: named members, or whatever the archive holds, land in DIR. */
function unzip(args: WordValue[], effects: FileEffects): void {
  let folder: WordValue | undefined;
  const operands: WordValue[] = [];
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (text === '-d') folder = args[++index];
    else if (text === '-x') index = args.length;
    else if (/^-[lptvzZ]+$/.test(text)) return;
    else if (!text.startsWith('-')) operands.push(args[index]!);
  }
  const members = operands.slice(1).map((member) => from(folder, member));
  if (members.length > 0 && !members.some((member) => member.glob)) effects.writes.push(...members);
  else effects.unpacks.push(folder ?? literalValue('.'));
}

/** `gzip FILE` replaces FILE with FILE.gz: a write and a delete, unless it keeps or only reads it. */
function compressor(keepsByDefault: boolean): DescribeEffects {
  return (args, effects) => {
    const parsed = parseOptions(args, ['S', 'suffix', 'b', 'T', 'threads', 'M', 'memlimit', 'o']);
    effects.writes.push(...optionValues(parsed, 'o'));
    if (hasOption(parsed, 'c', 'stdout', 'to-stdout', 'l', 'list', 't', 'test', 'o')) return;
    const keeps = hasOption(parsed, 'k', 'keep') || (keepsByDefault && !hasOption(parsed, 'rm'));
    for (const value of files(parsed.operands)) {
      effects.writes.push(value);
      if (!keeps) effects.deletes.push({ value });
    }
  };
}

/** `host:path`, `user@host:path` or a URL: not a local path. */
function remote(value: WordValue): boolean {
  return /^[^/]*:/.test(value.text);
}

function rsync(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(args, RSYNC_VALUES);
  if (
    optionValues(parsed, 'e', 'rsh').some(
      (value) => !/^ssh(\s+-[a-zA-Z46]+)*(\s+-p\s*\d+)?\s*$/.test(value.text),
    )
  )
    effects.unanalysable.push('rsync -e runs a command it names');
  effects.writes.push(...optionValues(parsed, 'log-file', 'backup-dir', 'write-batch', 'only-write-batch'));
  const operands = parsed.operands;
  if (operands.length < 2) return;
  const target = operands.at(-1)!;
  const sources = operands.slice(0, -1).filter((value) => !remote(value));
  if (!remote(target)) {
    effects.writes.push(target);
    if (parsed.options.some((option) => /^del(ete.*)?$/.test(option.name)))
      effects.deletes.push({ value: target, verb: 'recursive delete' });
    // `rsync a/ dest` copies a's contents (names not known here); `rsync a dest` makes dest/a.
    const contents = operands.slice(0, -1).filter((value) => /(^|\/)\.?$/.test(value.text) || remote(value));
    if (contents.length > 0) effects.unpacks.push(target);
    effects.into.push({ folder: target, sources: sources.filter((value) => !contents.includes(value)) });
    const links = hasOption(parsed, 'l', 'a', 'links', 'archive') && !hasOption(parsed, 'L', 'copy-links');
    if (links) effects.linkCopies.push({ sources, target });
  }
  if (hasOption(parsed, 'r', 'a', 'recursive', 'archive')) effects.recursiveReads.push(...sources);
  if (hasOption(parsed, 'remove-source-files')) for (const value of sources) effects.deletes.push({ value });
}

function scp(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(args, ['c', 'F', 'i', 'J', 'l', 'o', 'P', 'S', 'D', 'X']);
  if (hasOption(parsed, 'S')) effects.unanalysable.push('scp -S runs a program it names');
  const operands = parsed.operands;
  if (operands.length < 2) return;
  const target = operands.at(-1)!;
  if (!remote(target)) effects.writes.push(target);
  if (hasOption(parsed, 'r'))
    effects.recursiveReads.push(...operands.slice(0, -1).filter((value) => !remote(value)));
}

/** Archivers, compressors, transfer and download tools: the files they write, delete or read whole. */
export const ARCHIVE_PROGRAMS: Record<string, DescribeEffects> = {
  tar,
  zip,
  unzip,
  rsync,
  scp,
  ...Object.fromEntries(
    ['gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', 'lzma', 'unlzma', 'lzip', 'pigz', 'compress'].map(
      (name) => [name, compressor(false)],
    ),
  ),
  zstd: compressor(true),
  unzstd: compressor(true),
  lz4: compressor(true),
  curl(args, effects) {
    const parsed = parseOptions(args, CURL_VALUES);
    effects.writes.push(
      ...files(optionValues(parsed, 'o', 'output', 'D', 'dump-header', 'c', 'cookie-jar', 'stderr')),
      ...optionValues(parsed, 'output-dir', 'trace', 'trace-ascii', 'libcurl'),
    );
  },
  wget(args, effects) {
    const parsed = parseOptions(args, WGET_VALUES);
    effects.writes.push(
      ...files(optionValues(parsed, 'O', 'output-document')),
      ...optionValues(parsed, 'o', 'output-file', 'a', 'append-output', 'P', 'directory-prefix'),
      ...optionValues(parsed, 'save-cookies'),
    );
  },
  sort(args, effects) {
    const parsed = parseOptions(args, SORT_VALUES);
    effects.writes.push(...optionValues(parsed, 'o', 'output'));
    if (hasOption(parsed, 'compress-program'))
      effects.unanalysable.push('sort --compress-program runs a program it names');
  },
};
