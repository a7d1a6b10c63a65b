import type { WordValue } from './shell-paths.js';

/** A file or folder a command removes (`rm`, `find -delete`, the source of a move). */
export interface Delete {
  value: WordValue;
  /** How it goes for the special-folder check (`recursive delete`, `move`); undefined for a plain delete. */
  verb?: string;
  /** A move: a file named at run time is everyday here, not a signature. */
  move?: boolean;
  /** A `find` with tests (`-name …`): inside the workspace, not a delete of the folder itself. */
  filtered?: boolean;
}

/** A link a command creates. */
export interface Link {
  /** What it points to, as written. */
  target: WordValue;
  /** The link's own path, when named. */
  path?: WordValue;
  /** The folder the link is created in, when named instead of `path`. */
  folder?: WordValue;
  symbolic: boolean;
}

/** What one command does to files, by kind of access. Paths are arguments as written (relative or not). */
export interface FileEffects {
  writes: WordValue[];
  /** Folders created (`mkdir`): they overwrite nothing, so any depth in /tmp is scratch. */
  folders: WordValue[];
  deletes: Delete[];
  links: Link[];
  /** Reads beyond the ones every argument is checked for (`dd if=…`). */
  reads: WordValue[];
  /** Folders read with everything in them (`grep -r`, `cp -r`, `tar c`, `zip -r`). */
  recursiveReads: WordValue[];
  /** Recursive mode or owner changes (`chmod -R`), checked like recursive deletes. */
  recursiveChanges: Array<{ value: WordValue; verb: string }>;
  /** Arguments that are not paths from the working folder (a symbolic link's target, `dd` operands). */
  notPaths: WordValue[];
  /** Copies and moves into a folder (`mv e/SOUL.md .`): each source's name lands in it. */
  into: Array<{ folder: WordValue; sources: WordValue[] }>;
  /** Folders that receive files whose names are not known here (an archive extracted, a patch applied). */
  unpacks: WordValue[];
  /** Copies and moves that keep links (`mv`, `cp -P`/`-a`/`-R`, `rsync -l`): a link among the sources is made again. */
  linkCopies: Array<{ sources: WordValue[]; target: WordValue }>;
  /** Shell command strings the program runs (`sed 'e CMD'`), checked as scripts. */
  commands: Array<{ script: WordValue; where: string }>;
  signatures: string[];
  unanalysable: string[];
}

/** An empty set of effects. */
export function noEffects(): FileEffects {
  return {
    writes: [],
    folders: [],
    deletes: [],
    links: [],
    reads: [],
    recursiveReads: [],
    recursiveChanges: [],
    notPaths: [],
    into: [],
    unpacks: [],
    linkCopies: [],
    commands: [],
    signatures: [],
    unanalysable: [],
  };
}

/** Fills in the effects of one program run with its arguments. */
export type DescribeEffects = (args: WordValue[], effects: FileEffects) => void;
