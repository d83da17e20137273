// `import StrataSyncServers` brings the cloud file system protocol and the ensemble with it,
// so a user of a server backend needs one import.
@_exported public import StrataSync
