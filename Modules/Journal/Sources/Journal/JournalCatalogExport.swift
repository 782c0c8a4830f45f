// The catalog is data (its own module, which a server imports without the flows);
// whoever imports the journal gets it too.
@_exported import JournalCatalog
