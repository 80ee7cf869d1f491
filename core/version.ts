// A named import, so the bundle inlines the version string and not the whole package.json.
import { version } from '../package.json';

/** The package version, reported in the User-Agent and by the MCP server. */
export const VERSION: string = version;
