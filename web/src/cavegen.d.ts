// cavegen.d.ts - the types of the cavegen JavaScript module (docs/web.md).

/** Compiles and starts the WebAssembly module; every other call needs it
 * resolved. Calling it again returns the same promise. */
export function init(): Promise<void>;

/** The library's version, "MAJOR.MINOR.PATCH". */
export function version(): string;

/** The built-in presets, in the CLI's order (`cavegen --list-presets`). */
export function presets(): { name: string; summary: string }[];

/** The text of a built-in preset, or null when there is no such preset. */
export function presetText(name: string): string | null;

/** The settings a preset text offers, ["NAME=VALUE", ...] with the values
 * it has: what GenerateOptions.overrides can change. */
export function settings(text: string): string[];

export interface GenerateOptions {
  /** A built-in preset's name; the default, with no text either, is "type2". */
  preset?: string;
  /** Preset text (the preset language, docs/presets.md); wins over preset. */
  text?: string;
  /** The name JSON and Tiled maps record for the preset: by default the
   * built-in preset's name, none for text. */
  name?: string | null;
  /** 0 .. 2^64 - 1; a number must be a safe integer. Default 0. */
  seed?: number | bigint | string;
  /** The map's size, 1 .. 1048576; omitted or 0: the preset's size. */
  width?: number;
  height?: number;
  /** Changes of the preset's values, as the CLI's -D NAME=VALUE:
   * ["fill=48", "poi.count=4"] or { fill: 48, "poi.count": 4 }. */
  overrides?: string[] | Record<string, string | number>;
}

export type MarkerKind = 'entrance' | 'exit' | 'poi' | 'blocked';

export interface Marker {
  x: number;
  y: number;
  kind: MarkerKind;
  /** The ASCII character: '<', '>', '*', 'x', or 'A'..'Z' a point of a named kind. */
  symbol: string;
  /** For 'A'..'Z': the kind's name (`poi kind=chest`), else absent. */
  name?: string;
}

/** The CLI's --stats keys. Seeds are decimal strings (64-bit). */
export interface Stats {
  width: number;
  height: number;
  floor: number;
  floor_permille: number;
  regions: number;
  largest_region: number;
  dead_ends: number;
  points: number;
  /** Fewest steps from the entrance to the exit; -1 without both or unreachable. */
  path_length: number;
  attempts: number;
  seed: string;
  run_seed: string;
}

export interface Diagnostics {
  /** What failed: an unknown built-in preset, an override, the preset text, the run. */
  stage: 'preset' | 'overrides' | 'parse' | 'run';
  /** The library's status name: 'EPARSE', 'EINVAL', 'EFAIL', 'ENOMEM', ... */
  status: string;
  /** 1-based line and column in the preset text; 0 when they do not apply. */
  line: number;
  column: number;
  message: string;
}

export type Format = 'ascii' | 'json' | 'tmx' | 'tmj' | 'ansi' | 'pbm' | 'distances';

export interface Reach {
  /** width * height distances, row after row; UNREACHED_DISTANCE where not reached. */
  distances: Uint32Array;
  reached: number;
}

export interface Cave {
  ok: true;
  diag: null;
  width: number;
  height: number;
  /** width * height bytes, row after row: 0 floor (markers included), 1 wall. */
  cells: Uint8Array;
  /** In (y, x) order. */
  markers: Marker[];
  stats: Stats;
  /** The ASCII format's character codes of every cell, row after row. */
  symbols(): Uint8Array;
  /** The map in a format, the CLI's bytes for the same inputs (-f FORMAT). */
  format(format: Format, options?: { columns?: number }): string;
  formatBytes(format: Format, options?: { columns?: number }): Uint8Array;
  /** The reach from a floor cell within moves moves (omitted: no limit);
   * null for a wall or a cell off the map. */
  reach(x: number, y: number, moves?: number): Reach | null;
  /** Releases the map's WebAssembly memory now rather than when collected;
   * cells, markers and stats stay; format, symbols and reach then throw. */
  free(): void;
}

export interface Failure {
  ok: false;
  diag: Diagnostics;
  /** The preset text that was tried (null for an unknown built-in preset). */
  text: string | null;
}

/** Generates a map. Bad preset text, a bad override or a failed run give
 * ok: false with diag; a seed or size of the wrong type or range throws a
 * RangeError. */
export function generate(options?: GenerateOptions): Cave | Failure;

/** The distance of a cell no start reaches: 0xffffffff. */
export const UNREACHED_DISTANCE: number;
