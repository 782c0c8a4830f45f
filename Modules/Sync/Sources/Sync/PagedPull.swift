import FlowKit
import Foundation

/// What became of one row a pull read.
public enum SyncPulledItem: Sendable, Hashable {
  /// New here, and now kept.
  case imported
  /// One of this device's own rows, or one pulled before.
  case known
  /// Not an entity this app can hold, and why; skipped and reported, never kept.
  case invalid(String)
}

/// How every pull reads a list: a page at a time from where the last one stopped, each
/// row handed to the feature, with one set of limits, so a hostile or changing backend
/// is met the same way by every resource.
public enum PagedPull {
  public static let pageSize = 100
  /// The most pages (and `pageSize` rows each) one pull reads: a backend whose pages
  /// never end cannot keep a sync pulling, and one with more rows than that gives them
  /// over later pulls (`SyncPullReport.resumeOffset`).
  public static let maxPages = 100

  /// Pulls the pages from `offset` on, at most `maxPages` of them, until the total the
  /// first page gave: a later page's larger total (rows sent meanwhile) waits for the
  /// next pull, a smaller one (rows deleted meanwhile) ends it sooner. `page` reads the
  /// `pageSize` rows at an offset; `id` is a row's backend id, for the report; `each`
  /// turns a row into the feature's entity. A passing failure of a page ends the pull
  /// with what it imported (`SyncPullReport.error`); a permanent refusal (a 400) throws.
  public static func run<Record>(
    from offset: Int,
    page: (_ offset: Int) async throws(ProgressAPIError) -> Page<Record>,
    id: (Record) -> String,
    each: (Record) async throws -> SyncPulledItem
  ) async throws -> SyncPullReport {
    var report = SyncPullReport()
    var offset = max(offset, 0)
    var total: Int?
    for pageNumber in 1...maxPages {
      let answer: Result<Page<Record>, ProgressAPIError>
      do {
        answer = .success(try await page(offset))
      } catch {
        answer = .failure(error)
      }
      let fetched: Page<Record>
      switch answer {
      case .success(let page): fetched = page
      case .failure(let error) where error.isTransient:
        report.error = error
        return report
      case .failure(let error): throw error
      }
      guard fetched.total >= 0 else {
        report.unfinished = "the backend's total (\(fetched.total)) is not a count of rows"
        return report
      }
      for reason in fetched.skipped { report.skip(SyncPullSkip(backendID: nil, reason: reason)) }
      for record in fetched.entries {
        switch try await each(record) {
        case .imported: report.imported += 1
        case .known: break
        case .invalid(let reason):
          let backendID = id(record)
          report.skip(SyncPullSkip(backendID: backendID.isEmpty ? nil : backendID, reason: reason))
        }
      }
      // Unreadable rows count too, or a page of them would end the pull early.
      offset += fetched.rowCount
      let end = min(total ?? fetched.total, fetched.total)
      total = end
      if fetched.rowCount == 0 || offset >= end { return report }
      guard fetched.rowCount <= pageSize else {
        report.unfinished = "the backend answered \(fetched.rowCount) rows for a page of \(pageSize)"
        return report
      }
      if pageNumber == maxPages {
        report.unfinished =
          "the pull stopped after \(maxPages) pages (at row \(offset) of a total of \(end));"
          + " the next sync goes on from there"
        report.resumeOffset = offset
      }
    }
    return report
  }
}
