package policyclient

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Header names of a signed request (src/auth/request-signing.md).
const (
	HeaderTenantID        = "X-Tenant-Id"
	HeaderUserRole        = "X-User-Role"
	HeaderPolicyTimestamp = "X-Policy-Timestamp"
	HeaderPolicyNonce     = "X-Policy-Nonce"
	HeaderPolicySignature = "X-Policy-Signature"
)

// SignatureScheme is the only signing scheme the service knows.
const SignatureScheme = "v1"

var (
	noncePattern    = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)
	tenantIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// SigningInput is one request to sign. Timestamp is Unix seconds; Nonce must be 16 to 128
// characters of A-Z a-z 0-9 _ - and new for every request (NewNonce makes one).
type SigningInput struct {
	Method        string
	PathWithQuery string // the request target exactly as sent: "/graphql?trace=1"
	Body          []byte // nil or empty for a request without a body
	TenantID      string
	Role          string
	Secret        string // the tenant's signing secret as issued (used as UTF-8 bytes, not decoded)
	Timestamp     int64
	Nonce         string
}

// BodySHA256Hex is the lowercase hex SHA-256 of body (of the empty string for nil).
func BodySHA256Hex(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// CanonicalString is the string that is signed: method, path with query, timestamp, nonce,
// tenant, role and body hash, joined by "\n" with no trailing newline.
func CanonicalString(in SigningInput) (string, error) {
	fields := []string{
		strings.ToUpper(in.Method),
		in.PathWithQuery,
		strconv.FormatInt(in.Timestamp, 10),
		in.Nonce,
		in.TenantID,
		in.Role,
	}
	for _, field := range fields {
		if strings.ContainsAny(field, "\r\n") {
			return "", errors.New("policyclient: signed request fields must not contain line breaks")
		}
	}
	return strings.Join(append(fields, BodySHA256Hex(in.Body)), "\n"), nil
}

// Signature is the X-Policy-Signature header value: "v1=" and the unpadded base64url
// HMAC-SHA256 of the canonical string, keyed with the secret's bytes.
func Signature(in SigningInput) (string, error) {
	if err := checkSigningInput(in); err != nil {
		return "", err
	}
	canonical, err := CanonicalString(in)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, []byte(in.Secret))
	mac.Write([]byte(canonical))
	return SignatureScheme + "=" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignedHeaders returns the five headers of a signed request.
func SignedHeaders(in SigningInput) (map[string]string, error) {
	signature, err := Signature(in)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		HeaderTenantID:        in.TenantID,
		HeaderUserRole:        in.Role,
		HeaderPolicyTimestamp: strconv.FormatInt(in.Timestamp, 10),
		HeaderPolicyNonce:     in.Nonce,
		HeaderPolicySignature: signature,
	}, nil
}

// NewNonce returns 24 characters of base64url from 18 random bytes (144 bits), as the TypeScript
// client does.
func NewNonce() string {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("policyclient: no randomness for a nonce: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func checkSigningInput(in SigningInput) error {
	switch {
	case in.Timestamp < 0:
		return fmt.Errorf("policyclient: timestamp must be non-negative Unix seconds, got %d", in.Timestamp)
	case !noncePattern.MatchString(in.Nonce):
		return errors.New("policyclient: nonce must be 16 to 128 characters of A-Z, a-z, 0-9, '_' or '-'")
	case !tenantIDPattern.MatchString(in.TenantID):
		return errors.New("policyclient: tenant id must be 1 to 64 characters of A-Z, a-z, 0-9, '_' or '-'")
	case in.Secret == "":
		return errors.New("policyclient: signing secret must not be empty")
	}
	return nil
}
