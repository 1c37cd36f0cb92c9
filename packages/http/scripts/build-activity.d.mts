/** Where the built page goes: the package's `activity/` folder, with a trailing slash. */
export declare const ACTIVITY_OUT: string;
/** The page's bundle in memory, by file name (`activity.js`, `activity.css`). */
export declare function bundleActivity(): Promise<Record<string, string>>;
