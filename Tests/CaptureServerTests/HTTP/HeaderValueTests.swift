import HTTPTypes
import Testing

@testable import CaptureServer

@Suite struct HeaderValueTests {
    @Test func aFieldThatComesOnceIsItsValueAndAnAbsentOneNil() {
        let fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .authorization: "Basic eDp5"]
        #expect(fields.value(.contentType) == "application/x-www-form-urlencoded")
        #expect(fields.value(.authorization) == "Basic eDp5")
        #expect(fields.value(.acceptLanguage) == nil)
    }

    @Test func repeatedFieldsAreJoinedAsTheSubscriptJoinsThem() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .authorization, value: "Basic eDp5"))
        fields.append(HTTPField(name: .accept, value: "text/html"))
        fields.append(HTTPField(name: .authorization, value: "Bearer abc"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        #expect(fields.value(.authorization) == "Basic eDp5, Bearer abc")
        #expect(fields.value(.authorization) == fields[.authorization])
        #expect(fields.value(.cookie) == "a=1; b=2")
    }

    @Test func namesMatchInAnyCase() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("CONTENT-TYPE")!, value: "text/plain"))
        #expect(fields.value(.contentType) == "text/plain")
    }
}
