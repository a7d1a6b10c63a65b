/**
 * A line of Markdown as the plain words a reader sees — for titles made from a first message (`# Plan`,
 * `**urgent**: call Ana`, `` `npm test` fails ``). Drops heading, quote and list markers, emphasis and code
 * marks, keeps a link's or image's text (not its address), removes HTML tags, and joins everything on one
 * line. Pure and linear: each pattern is anchored or bounded, so a hostile title cannot make it slow.
 */
export function plainText(markdown: string): string {
  return (
    markdown
      // Fenced-code fences and their language tag.
      .replace(/^\s*(```|~~~)[^\n]*$/gm, ' ')
      // Block markers at a line's start: headings, quotes, list bullets and numbers, task boxes.
      .replace(/^[ \t]*(?:>[ \t]?)*(?:#{1,6}[ \t]+|[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,9}[.)][ \t]+)?/gm, '')
      // Images and links: their text.
      .replace(/!?\[([^\]\n]{0,500})\]\([^)\n]{0,2000}\)/g, '$1')
      // HTML tags (the text between them stays).
      .replace(/<\/?[a-zA-Z][^<>\n]{0,500}>/g, '')
      // Emphasis and code marks: runs of *, _ (at a word's edge), ~~ and backticks.
      .replace(/(\*{1,3}|~~|`+)/g, '')
      .replace(/(^|[\s(])_{1,3}(?=\S)|(?<=\S)_{1,3}(?=$|[\s).,:;!?])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
