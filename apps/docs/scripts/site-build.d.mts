import type { ChildProcess } from 'node:child_process';

export declare const siteSources: string[];
/** `root`: a repository's folder, ending in `/`; this repository by default. */
export declare function siteFiles(root?: string): Promise<string[]>;
export declare function siteKey(root?: string): Promise<string>;
export declare function builtKey(): string | undefined;
export declare function ensureSiteBuilt(options?: {
  force?: boolean;
  detached?: boolean;
  onChild?: (child: ChildProcess) => void;
}): Promise<boolean>;
