/** A stylesheet imported as text (esbuild's `text` loader for the Timeline bundle). */
declare module '*.css' {
  const text: string;
  export default text;
}
