// qrcode-terminal ships no types; the one call the terminal makes.
declare module 'qrcode-terminal' {
  const qrcode: { generate(text: string, options: { small?: boolean }, callback: (drawn: string) => void): void };
  export default qrcode;
}
