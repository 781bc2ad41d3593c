// Types of src/input/environment.mjs (plain JavaScript: the npm scripts' set-up runs it before the TypeScript loader).
export declare const MUTANT_ID: RegExp;
export declare const ENVIRONMENT_VARIABLES: readonly { name: string; check: (value: string) => string | null }[];
export declare function variableProblems(env: NodeJS.ProcessEnv): string[];
export declare function temporaryDirectoryProblem(): string | null;
export declare function checkEnvironment(tool: string): void;
