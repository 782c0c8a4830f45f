/// The progress API's contract, `Modules/ProgressAPI/openapi.yaml`, compiled in (so a
/// `wellflow` copied anywhere serves it at `GET /openapi.yaml`).
public enum OpenAPIDocument {
  /// The document's bytes, as in the file.
  public static let yaml: [UInt8] = PackageResources.openapi_yaml
}
