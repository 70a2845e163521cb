/**
 * The OCEL readers belong to the file layer and share its one error registry
 * (../errors.ts, the `ocel_*` codes); these names keep their call sites short.
 */
export { FileImportError as OcelError, fileErrorCodes as ocelErrorCodes, type FileErrorCode as OcelErrorCode } from '../errors.js';
