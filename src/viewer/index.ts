// groundswell/viewer: a local web page for a run, live or stored (decision 0036).
export { serveViewer } from './serve-viewer.js';
export type { Viewer, ViewerOptions, ViewableWorkflow } from './serve-viewer.js';
export type { ViewerMode } from './stream-messages.js';
export { ViewerError } from './viewer-error.js';
export type { NodeRow } from './wire-row.js';
export type { NodeDetails } from './node-details.js';
export type { ViewerWait } from './viewer-wait.js';
export type { ViewerSignalTarget } from './signal-target.js';
