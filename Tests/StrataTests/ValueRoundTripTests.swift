import Foundation
import Testing
@testable import Strata

/// Every attribute type keeps its value through a save, closing the store, and reading it
/// back with a new coordinator on the same file.
@Suite struct ValueRoundTripTests {
    /// Saves one `Sample` per setup (named `s00`, `s01`, …), closes the coordinator, opens a
    /// new one on the same file and hands the fetched samples, in setup order, to `check`.
    func roundTrip(_ setups: [@Sendable (Sample) -> Void], check: @escaping @Sendable ([Sample]) throws -> Void) async throws {
        let dir = TemporaryDirectory()
        do {
            let (coordinator, context) = try await openSamples(dir.file())
            try await context.perform {
                for (i, setup) in setups.enumerated() {
                    let sample = context.insert(Sample.self)
                    sample.name = String(format: "s%02d", i)
                    setup(sample)
                }
                try context.save()
            }
            try coordinator.close()
        }
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let samples = try context.fetch(FetchRequest<Sample>(sortKeys: [SortKey("name")]))
            #expect(samples.count == setups.count)
            try check(samples)
        }
        try coordinator.close()
    }

    @Test func integersAtTheirLimits() async throws {
        let small: [Int16] = [.min, .max, 0, -1]
        let medium: [Int32] = [.min, .max, 0, -1]
        let large: [Int64] = [.min, .max, 0, -1]
        try await roundTrip((0..<4).map { i in { $0.small = small[i]; $0.medium = medium[i]; $0.large = large[i] } }) { samples in
            #expect(samples.map(\.small) == small)
            #expect(samples.map(\.medium) == medium)
            #expect(samples.map(\.large) == large)
        }
    }

    @Test func doublesKeepEveryBitIncludingNaNAndNegativeZero() async throws {
        let values: [Double] = [.nan, .infinity, -.infinity, -0.0, 0.0, 1.5, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 3.0]
        try await roundTrip(values.map { value in { $0.real = value } }) { samples in
            #expect(samples.map(\.real.bitPattern) == values.map(\.bitPattern))
            #expect(samples[3].real.sign == .minus)
            #expect(samples[0].real.isNaN)
        }
    }

    /// "Changed" means "stored differently": the same NaN again is no change, `-0.0` over
    /// `0.0` is one.
    @Test func doubleChangesAreByBits() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "x"
            sample.real = .nan
            try context.save()
            sample.real = .nan
            #expect(!sample.hasChanges)
            sample.real = 0
            try context.save()
            sample.real = -0.0
            #expect(sample.changedValues()["real"] == .double(-0.0))
            try context.save()
        }
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let sign = try await fresh.perform { try fresh.fetch(FetchRequest<Sample>()).first?.real.sign }
        #expect(sign == .minus)
        try coordinator.close()
    }

    @Test func decimalsKeep38Digits() async throws {
        let texts = [
            "12345678901234567890123456789012345678",
            "-99999999999999999999999999999999999999",
            "0.12345678901234567890123456789012345678",
            "-1234567890123456789.0123456789012345678",
            "0", "1e100", "-1e-100",
        ]
        let values = texts.map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! }
        try await roundTrip(values.map { value in { $0.amount = value } }) { samples in
            #expect(samples.map(\.amount) == values)
            #expect(samples.map(\.amount.description) == values.map(\.description))
        }
    }

    /// Dates keep their `timeIntervalSince1970` exactly (a `Double`): sub-microsecond near the
    /// present, about 15 µs at year 1 and year 9999.
    @Test func datesFarInThePastAndFuture() async throws {
        let calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()
        let yearOne = calendar.date(from: DateComponents(year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 1))!.addingTimeInterval(0.25)
        let year9999 = calendar.date(from: DateComponents(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59))!.addingTimeInterval(0.5)
        let dates = [
            Date(timeIntervalSince1970: yearOne.timeIntervalSince1970),
            Date(timeIntervalSince1970: year9999.timeIntervalSince1970),
            Date(timeIntervalSince1970: 1_700_000_000.123456),
            Date(timeIntervalSince1970: -0.000001),
            Date(timeIntervalSince1970: 86_400),
        ]
        try await roundTrip(dates.map { date in { $0.moment = date } }) { samples in
            #expect(samples.map(\.moment.timeIntervalSince1970) == dates.map(\.timeIntervalSince1970))
            #expect(calendar.component(.year, from: samples[0].moment) == 1)
            #expect(calendar.component(.year, from: samples[1].moment) == 9999)
        }
    }

    @Test func uuidsURLsAndBools() async throws {
        let uuids = [UUID(), UUID(uuidString: "00000000-0000-0000-0000-000000000000")!, UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!]
        let urls = [URL(string: "https://example.com/a%20b?q=%C3%A9&x=1#frag")!, URL(fileURLWithPath: "/tmp/some file.txt"), URL(string: "urn:isbn:0451450523")!]
        try await roundTrip((0..<3).map { i in { $0.identifier = uuids[i]; $0.link = urls[i]; $0.flag = i == 1 } }) { samples in
            #expect(samples.map(\.identifier) == uuids)
            #expect(samples.map(\.link) == urls)
            #expect(samples.map(\.flag) == [false, true, false])
        }
    }

    @Test func emptyAndSixteenMegabyteData() async throws {
        var big = Data(count: 16 << 20)
        big.withUnsafeMutableBytes { bytes in for i in stride(from: 0, to: bytes.count, by: 4093) { bytes[i] = UInt8(truncatingIfNeeded: i) } }
        let large = big
        try await roundTrip([{ $0.blob = Data() }, { $0.blob = large }]) { samples in
            #expect(samples[0].blob.isEmpty)
            #expect(samples[1].blob.count == large.count)
            #expect(samples[1].blob == large)
        }
    }

    @Test func stringsWithNULEmojiAndCombiningMarks() async throws {
        let texts = ["", "a\u{0}b\u{0}", "👩‍👩‍👧‍👦🇫🇷", "e\u{301}\u{323}", "\u{E9}", "Z̤̈a̧l̈g̈ö", "\u{FEFF}\u{200D}"]
        try await roundTrip(texts.map { text in { $0.text = text } }) { samples in
            #expect(samples.map { Array($0.text.utf8) } == texts.map { Array($0.utf8) })
        }
    }

    /// NFC and NFD spellings of a string are different values: both are kept byte for byte,
    /// a unique key accepts both, and changing one into the other is a change that is saved.
    @Test func nfcAndNFDStayDistinct() async throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift's == says they are equal; Strata must not.
        let dir = TemporaryDirectory()
        do {
            let (coordinator, context) = try await openSamples(dir.file())
            try await context.perform {
                context.insert(Sample.self).name = nfc
                context.insert(Sample.self).name = nfd
                try context.save()
                let other = context.insert(Sample.self)
                other.name = "other"
                other.text = nfc
                try context.save()
                other.text = nfd
                #expect(other.hasChanges)
                #expect(other.changedValues()["text"] == .string(nfd))
                try context.save()
            }
            try coordinator.close()
        }
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let names = try context.fetch(FetchRequest<Sample>()).map { Array($0.name.utf8) }
            #expect(Set(names) == [Array(nfc.utf8), Array(nfd.utf8), Array("other".utf8)])
            let byNFC = try context.fetch(FetchRequest<Sample>(predicate: try ObjectPredicate("name == %@", nfc)))
            #expect(byNFC.map { Array($0.name.utf8) } == [Array(nfc.utf8)])
            let other = try #require(try context.fetch(FetchRequest<Sample>(predicate: try ObjectPredicate("name == %@", "other"))).first)
            #expect(Array(other.text.utf8) == Array(nfd.utf8))
            // A third spelling of an existing key still collides.
            context.insert(Sample.self).name = nfd
            do { try context.save(); Issue.record("duplicated") }
            catch let error as StrataError { #expect(error.code == .conflict); #expect(error.key == "name") }
        }
        try coordinator.close()
    }
}
