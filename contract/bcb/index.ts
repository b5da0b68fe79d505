/**
 * The contract of the /v2 surface: the Banco Central's API Pix (docs/bcb-pix-api-2.9.0.yaml), charge
 * side, as zod schemas named as the yaml names them. Checked against the yaml itself by
 * test/unit/bcb-contract.test.ts (the yaml's examples, and ajv over what these schemas produce).
 */
export * from './common';
export * from './cob';
export * from './cobv';
export * from './lotecobv';
export * from './loc';
export * from './pix';
export * from './webhook';
export * from './payload';
export * from './problema';
