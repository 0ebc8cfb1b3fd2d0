import CaptureJSON
import Testing

@testable import CaptureCore

/// Imported password hashes of every format Janrain names, and PHC strings: each vector below was made by a tool
/// nobody here wrote (passlib 1.7.4, `openssl passwd`, `mkpasswd`, Python's hashlib) for the password
/// "correct horse"; Tests/Interop/test_password_hashes.py makes fresh ones and signs in with them.
@Suite struct LegacyPasswordHashTests {
    static let password = "correct horse"
    static let floor = "$2b$04$" + String(repeating: ".", count: 53)

    /// (the record's `password` as JSON, the format the stored hash says)
    static let vectors: [(String, String)] = [
        (#"{"type": "password-md5", "value": "3cb4e732631f47e6eb961f34554b7cde"}"#, "md5"),
        (#"{"type": "password-sha", "value": "2f9e53523b62abc141a2b4d6019d23cba835dbd0"}"#, "sha1"),
        (
            #"{"type": "password-sha-256", "value": "4104D36F8DA2C254349F85836793EBE029E0C957063A34C91C2E9203187B5631"}"#,
            "sha-256"
        ),
        (
            #"{"type": "password-sha-512", "value": "VraY3v7bWkNbY0r+MyC7rz/c2SC2xQOkRvx7endrKY1HnRumqLYXgI6wv1ec6aldZoNHvKtxSQhayTyyeZUZew=="}"#,
            "sha-512"
        ),
        (
            #"{"type": "password-md5-salted-left", "value": "a364427802fb1b16d09db305fd5e598e", "salt": "pepper42"}"#,
            "md5-salted-left"
        ),
        (
            #"{"type": "password-md5-salted-right", "value": "4f9af711524a340de35d4aaaa092748a", "salt": "pepper42"}"#,
            "md5-salted-right"
        ),
        (
            #"{"type": "password-md5-salted-left-base64", "value": "6tydoOSL96Ki3flt/65yFg==", "salt": "S41tS41t"}"#,
            "md5-salted-left"
        ),
        (
            #"{"type": "password-md5-salted-right-base64", "value": "078276056768C8F814B5D7325725336B", "salt": "S41tS41t"}"#,
            "md5-salted-right"
        ),
        (#"{"type": "password-netforum", "value": "5056b938c4365c28815839db7197387e00c9b2c9", "salt": "pepper42"}"#, "netforum"),
        (
            #"{"type": "password-pbkdf2-sha256", "value": "8c0d950cbc32bce732731a472e46b76b1f837a4c8b19e4dcc784e42a3842e11e", "salt": "pepper42", "iterations": 1000}"#,
            "pbkdf2-sha256"
        ),
        (#""$pbkdf2-sha256$1000$obT2vtd6j7HWWsu5FyLkPA$SmmaAaMU9bFi.CS2qewciFNw4qusLGnfKwoapAGamO4""#, "pbkdf2-sha256"),
        (
            #"{"type": "password-pbkdf2-sha1", "value": "$pbkdf2$1000$K0XIOadUyjknBAAgRCgFYA$A1sg02un2DbV72kp6xyNbn/nhw4"}"#,
            "pbkdf2-sha1"
        ),
        (
            #""$pbkdf2-sha512$1000$671Xau29t9b6fw.BsHbOGQ$PEqWzRHiHVlMZByYnfYakfvnj83HmdA.x2PxwINzv1Q/DFlLk2016.Gr64CFSdHRioDqGgtERRxj4BQpov5K5g""#,
            "pbkdf2-sha512"
        ),
        (#""$1$saltsalt$NuzA7WTAelpl95xgBGWN60""#, "crypt-md5"),
        (
            #"{"type": "password-crypt-sha256", "value": "$5$saltsalt$myjXcpMpE2Ofk7fj9hqyNYSn6lmWG4Mqnjx.KIRRr4/"}"#,
            "crypt-sha256"
        ),
        (#""$5$rounds=2000$QR7/e5Zeiq9IJic.$zaQQf6LjHa9FhYE/XBPsOuntd/yyNJEKRrMc336Goi6""#, "crypt-sha256"),
        (
            #""$6$saltsalt$hRM5XZ86KXEw9UOmjigeVqFgULtFB2sgpC9lXQDfMib3Zgw7mEiUvBJI2EplzfAqxL5Vvwp2scFtv/uamSo5z0""#,
            "crypt-sha512"
        ),
        (
            #""$6$rounds=5000$abcdefgh$yIZAF3gQPvtKZO/9qOJKffAKKbtS3ef3qmwyugk4uWVjX8YZf/GV3A8SkFxEPY0T56CcilGrHKLffBsp6dLMG.""#,
            "crypt-sha512"
        ),
        (#"{"type": "password-crypt-des", "value": "abhfCpXqd4GrI"}"#, "crypt-des"),
        (#"{"type": "password-phpass-md5", "value": "$P$6IeePe.MR.PCieAQJ4.flMaj7gUBgk0"}"#, "phpass"),
        (#""$H$6WmBTo7yZZ9.RV3xEnr3SLiiWq1hPc1""#, "phpass"),
        // Drupal 7's $S$ (hashlib, from password.inc's definition; passlib lacks it).
        (
            #"{"type": "password-phpass-sha512-truncated-55", "value": "$S$8AbCdEfGhhWda2HqmpQOrSzawYut8Tq3YKcvd7o4X4fATIQfwxt6"}"#,
            "phpass"
        ),
        (#""$argon2id$v=19$m=256,t=2,p=2$5Pzfe4+x1hoDQCjl3NubMw$0ZK2036oKtV/t2+oUuqDgQ""#, "argon2id"),
        (#""$scrypt$ln=10,r=8,p=1$pjQmpNSaE4JQag1hbG2ttQ$0H3UF3XxQ3YLFyP6jqHtBMu/lKrNPRJ3VwwBcJJk+jI""#, "scrypt"),
    ]

    static func stored(_ json: String) throws -> String? {
        try ImportedPasswordHash.hash(from: try JSONParser.parse(Array(json.utf8)))
    }

    static func violation(_ json: String) -> SchemaViolation? {
        do {
            _ = try ImportedPasswordHash.hash(from: try JSONParser.parse(Array(json.utf8)))
            return nil
        } catch let error as SchemaViolation {
            return error
        } catch {
            return nil
        }
    }

    @Test("every format verifies the right password and refuses a wrong one", arguments: vectors)
    func verifies(_ json: String, _ format: String) throws {
        let stored = try #require(try Self.stored(json))
        #expect(stored.hasPrefix("$legacy$\(format)$"))
        #expect(StoredPasswordHash.format(of: stored) == .legacy(format))
        #expect(StoredPasswordHash.matches(Self.password, stored: stored, timingFloor: Self.floor))
        #expect(!StoredPasswordHash.matches("Correct horse", stored: stored, timingFloor: Self.floor))
        #expect(!StoredPasswordHash.matches("", stored: stored, timingFloor: Self.floor))
        #expect(BcryptPasswordHasher(cost: 10).needsRehash(stored))
        // The tag reads back to the same hash, and an owner's read of it (one instance pulling from another) imports
        // as itself.
        #expect(try LegacyPasswordHash(stored: stored)?.stored == stored)
        #expect(RecordService.exported(hash: stored) == .string(stored))
        #expect(try ImportedPasswordHash.hash(from: RecordService.exported(hash: stored)) == stored)
    }

    /// DES crypt counts the first 8 characters only: that is the format, and why it is weak.
    @Test func desCryptIgnoresCharactersAfterTheEighth() throws {
        let stored = try #require(try Self.stored(#"{"type": "password-crypt-des", "value": "abhfCpXqd4GrI"}"#))
        #expect(StoredPasswordHash.matches("correct ", stored: stored, timingFloor: Self.floor))
        #expect(try LegacyPasswordHash(stored: stored)?.isWeak == true)
    }

    @Test(
        "a malformed hash or password object is refused as a data format error on password",
        arguments: [
            #"{"type": "password-md5", "value": "3cb4e732631f47e6eb961f34554b7cd"}"#,  // 31 hex digits
            #"{"type": "password-md5", "value": "3cb4e732631f47e6eb961f34554b7cde00"}"#,  // 17 bytes
            #"{"type": "password-md5", "value": "3cb4e732631f47e6eb961f34554b7cde", "salt": "x"}"#,
            #"{"type": "password-md5-salted-left", "value": "a364427802fb1b16d09db305fd5e598e"}"#,  // no salt
            #"{"type": "password-md5-salted-left-base64", "value": "6tydoOSL96Ki3flt/65yFg==", "salt": "not base64!"}"#,
            #"{"type": "password-sha-256", "value": "zz04d36f8da2c254349f85836793ebe029e0c957063a34c91c2e9203187b5631"}"#,
            #"{"type": "password-pbkdf2-sha256", "value": "8c0d950cbc32bce732731a472e46b76b", "salt": "pepper42"}"#,
            #"{"type": "password-crypt-sha512", "value": "$5$saltsalt$myjXcpMpE2Ofk7fj9hqyNYSn6lmWG4Mqnjx.KIRRr4/"}"#,
            #"{"type": "password-crypt-des", "value": "abhfCpXqd4Gr"}"#,
            #"{"type": "password-phpass-md5", "value": "$P$6IeePe.MR.PCieAQJ4.flMaj7gUBgk"}"#,
            #"{"type": "password-whirlpool", "value": "3cb4e732631f47e6eb961f34554b7cde"}"#,
            #"{"type": "password-md5", "value": "3cb4e732631f47e6eb961f34554b7cde", "rounds": 3}"#,
            #""$1$saltsalt$NuzA7WTAelpl95xgBGWN6""#, #""$argon2id$v=19$m=256,t=2$5Pzfe4+x1hoDQCjl3NubMw$0ZK2036oKtV/t2+oUuqDgQ""#,
            #""$argon2id$v=18$m=256,t=2,p=2$5Pzfe4+x1hoDQCjl3NubMw$0ZK2036oKtV/t2+oUuqDgQ""#,
            #""$scrypt$ln=10,r=8,p=1,x=2$pjQmpNSaE4JQag1hbG2ttQ$0H3UF3XxQ3YLFyP6jqHtBMu/lKrNPRJ3VwwBcJJk+jI""#,
            #""$scrypt$ln=10,r=8$pjQmpNSaE4JQag1hbG2ttQ$0H3UF3XxQ3YLFyP6jqHtBMu/lKrNPRJ3VwwBcJJk+jI""#,
            #""$pbkdf2-sha256$many$obT2vtd6j7HWWsu5FyLkPA$SmmaAaMU9bFi.CS2qewciFNw4qusLGnfKwoapAGamO4""#,
            #""3cb4e732631f47e6eb961f34554b7cde""#,  // a bare digest says nothing of its format
        ])
    func malformed(_ json: String) {
        let violation = Self.violation(json)
        #expect(violation?.path == "password")
        #expect(violation?.kind == .invalidDataFormat, "\(String(describing: violation))")
    }

    @Test(
        "a hash whose cost could occupy the service is refused as a constraint",
        arguments: [
            #"{"type": "password-pbkdf2-sha256", "value": "8c0d950cbc32bce732731a472e46b76b1f837a4c8b19e4dcc784e42a3842e11e", "salt": "p", "iterations": 2000001}"#,
            // Within the iterations, but 4 output blocks of SHA-1 each: 4 × 600,000.
            #"{"type": "password-pbkdf2-sha1", "value": "\#(String(repeating: "ab", count: 64))", "salt": "p", "iterations": 600000}"#,
            #""$6$rounds=1000001$abcdefgh$yIZAF3gQPvtKZO/9qOJKffAKKbtS3ef3qmwyugk4uWVjX8YZf/GV3A8SkFxEPY0T56CcilGrHKLffBsp6dLMG.""#,
            #""$P$NIeePe.MR.PCieAQJ4.flMaj7gUBgk0""#,  // 2^25 rounds
            #""$argon2id$v=19$m=1048576,t=2,p=2$5Pzfe4+x1hoDQCjl3NubMw$0ZK2036oKtV/t2+oUuqDgQ""#,
            #""$argon2id$v=19$m=65536,t=100,p=2$5Pzfe4+x1hoDQCjl3NubMw$0ZK2036oKtV/t2+oUuqDgQ""#,
            #""$scrypt$ln=20,r=8,p=1$pjQmpNSaE4JQag1hbG2ttQ$0H3UF3XxQ3YLFyP6jqHtBMu/lKrNPRJ3VwwBcJJk+jI""#,
            #""$scrypt$ln=16,r=8,p=16$pjQmpNSaE4JQag1hbG2ttQ$0H3UF3XxQ3YLFyP6jqHtBMu/lKrNPRJ3VwwBcJJk+jI""#,
        ])
    func overCost(_ json: String) {
        let violation = Self.violation(json)
        #expect(violation?.path == "password")
        #expect(violation?.kind == .constraint, "\(String(describing: violation))")
    }

    /// bcrypt stays as it is stored today; a stored legacy tag out of shape is never checked, and reads as unusable.
    @Test func formatsAreToldFromTheStoredTag() throws {
        let bcrypt = try #require(try Self.stored(#""$2b$10$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.""#))
        #expect(!bcrypt.hasPrefix("$legacy$"))
        #expect(StoredPasswordHash.format(of: bcrypt) == .bcrypt && StoredPasswordHash.format(of: nil) == .none)
        #expect(StoredPasswordHash.format(of: "$legacy$md5$$00") == .unusable)
        #expect(StoredPasswordHash.format(of: "$legacy$rot13$$00") == .unusable)
        #expect(!StoredPasswordHash.matches("x", stored: "$legacy$md5$$00", timingFloor: Self.floor))
        // Exported to an owner: bcrypt as Janrain's object, a tag never run as nothing; imported, a bad tag is refused.
        #expect(RecordService.exported(hash: bcrypt) == ["type": "password-bcrypt", "value": .string(bcrypt)])
        #expect(RecordService.exported(hash: "$legacy$md5$$00") == .null)
        #expect(Self.violation(#""$legacy$md5$$00""#)?.kind == .invalidDataFormat)
        #expect(StoredPasswordHash.Format.legacy("md5-salted-left").description == "md5-salted-left (migrating)")
    }
}
