/**
 * The new words of a mail reply: everything before the quoted original ("On … wrote:", "-----Original
 * Message-----", a block of `>` lines, Outlook's "From: … Sent: …" header), trimmed.
 */
export function newText(body: string): string {
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (/^\s*On .{4,200}wrote:\s*$/.test(line)) break;
    if (/^\s*On .{4,200}$/.test(line) && /wrote:\s*$/.test(lines[index + 1] ?? '')) break;
    if (/^-{2,}\s*(Original Message|Forwarded message)/i.test(line.trim())) break;
    if (/^(From|发件人):\s/.test(line) && /^(Sent|Date|发送时间):\s/.test(lines[index + 1] ?? '')) break;
    if (/^>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}
