// Types of src/input/terminal_text.mjs (plain JavaScript: the preflight uses it before the TypeScript loader).
export declare function printable(text: string, keep?: 'lines' | 'none'): string;
export declare function writeControl(stream: NodeJS.WriteStream, text: string): void;
export declare function guardTerminal(): void;
