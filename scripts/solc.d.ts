/** The part of solc-js (`solc` npm package) scripts/compile-contracts.ts uses. */
declare module 'solc' {
  const solc: {
    /** Standard JSON input → standard JSON output, both as strings. */
    compile(input: string): string;
    /** The compiler version, e.g. `0.8.28+commit.7893614a.Emscripten.clang`. */
    version(): string;
  };
  export default solc;
}
