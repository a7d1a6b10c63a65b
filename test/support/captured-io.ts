/** A CLI command's stdout and stderr captured as text: pass `io` to the command, read `out` after it ran. */
export function capturedIo() {
  const out = { stdout: '', stderr: '' };
  const writer = (key: 'stdout' | 'stderr') => ({
    write: (text: string) => {
      out[key] += text;
      return true;
    },
  });
  return { out, io: { stdout: writer('stdout'), stderr: writer('stderr') } };
}
