export { buildFrontendBundle, bundleFiles, type BundleFile, type FrontendBundleInput } from './bundle.ts';
export { clientSchema, type ClientSchema, type ClientModel, type ClientField } from './schema.ts';
export { zipFiles, zipToBuffer } from './zip.ts';
