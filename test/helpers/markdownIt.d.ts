/**
 * The part of markdown-it (present through @vscode/vsce) the markdown-escaping
 * tests use to render tooltips as VS Code would.
 */
declare module 'markdown-it' {
  interface Options {
    linkify?: boolean;
    html?: boolean;
  }
  export default class MarkdownIt {
    constructor(options?: Options);
    render(src: string): string;
    renderInline(src: string): string;
  }
}
