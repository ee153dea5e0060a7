package policyclient_test

import (
	"testing"

	policyclient "github.com/policy-engine/client-go"
)

// The worked example of src/auth/request-signing.md (also src/auth/__tests__/request-signature.test.ts).
var vector = policyclient.SigningInput{
	Method:        "POST",
	PathWithQuery: "/graphql?trace=1",
	Body:          []byte(`{"query":"{ listPolicies { id } }"}`),
	TenantID:      "acme-corp",
	Role:          "MEMBER",
	Secret:        "tenant-secret-for-tests-0001",
	Timestamp:     1700000000,
	Nonce:         "n0nce_Example-0123456789",
}

func TestSignatureMatchesTheDocumentedVector(t *testing.T) {
	if got, want := policyclient.BodySHA256Hex(vector.Body), "20ff7da268dbff344121ead9f2183874d4deec88d4e1bf5925eb74317bbeec56"; got != want {
		t.Errorf("body hash %s, want %s", got, want)
	}
	if got, want := policyclient.BodySHA256Hex(nil), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("empty body hash %s, want %s", got, want)
	}
	canonical, err := policyclient.CanonicalString(vector)
	if err != nil {
		t.Fatal(err)
	}
	wantCanonical := "POST\n/graphql?trace=1\n1700000000\nn0nce_Example-0123456789\nacme-corp\nMEMBER\n20ff7da268dbff344121ead9f2183874d4deec88d4e1bf5925eb74317bbeec56"
	if canonical != wantCanonical {
		t.Errorf("canonical string\n%q\nwant\n%q", canonical, wantCanonical)
	}
	headers, err := policyclient.SignedHeaders(vector)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := headers["X-Policy-Signature"], "v1=uU8nSeETdVWfrX-9TLvazYjAL30x4afVx1eCcP4_VHI"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	if headers["X-Policy-Timestamp"] != "1700000000" || headers["X-Policy-Nonce"] != vector.Nonce ||
		headers["X-Tenant-Id"] != "acme-corp" || headers["X-User-Role"] != "MEMBER" {
		t.Errorf("headers %v", headers)
	}
}

func TestSigningRefusesWhatTheServerWould(t *testing.T) {
	cases := map[string]func(*policyclient.SigningInput){
		"short nonce":        func(in *policyclient.SigningInput) { in.Nonce = "short" },
		"nonce alphabet":     func(in *policyclient.SigningInput) { in.Nonce = "n0nce+Example/0123456789" },
		"bad tenant":         func(in *policyclient.SigningInput) { in.TenantID = "acme corp" },
		"empty secret":       func(in *policyclient.SigningInput) { in.Secret = "" },
		"line break in path": func(in *policyclient.SigningInput) { in.PathWithQuery = "/graphql\nX" },
		"negative timestamp": func(in *policyclient.SigningInput) { in.Timestamp = -1 },
	}
	for name, change := range cases {
		in := vector
		change(&in)
		if _, err := policyclient.Signature(in); err == nil {
			t.Errorf("%s: signed anyway", name)
		}
	}
}

func TestNewNonceIsFreshAndWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		nonce := policyclient.NewNonce()
		in := vector
		in.Nonce = nonce
		if _, err := policyclient.Signature(in); err != nil {
			t.Fatalf("nonce %q refused: %v", nonce, err)
		}
		if seen[nonce] {
			t.Fatalf("nonce %q repeated", nonce)
		}
		seen[nonce] = true
	}
}
