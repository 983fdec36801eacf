/**
 * TypeBox, as every program of this package imports it. The build bundles this file into one
 * module (scripts/bundle-typebox.mjs): loaded as its ~680 ES modules, TypeBox alone costs a
 * Node 20 process some 20 MB while it starts, 3–6 MB of it for good.
 */
export { type Static, type TSchema, Type } from 'typebox';
export { Compile, type Validator } from 'typebox/compile';
export { Value } from 'typebox/value';
