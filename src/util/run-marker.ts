/**
 * The variable exec's process runner adds to every command's environment, set to an id unique to the run:
 * every process the command starts inherits it, so the processes can be found in `/proc/<pid>/environ` and
 * stopped with the call. The shell analyser treats a command that clears or unsets it as hiding from that.
 */
export const RUN_MARKER = 'WREN_EXEC_RUN';
