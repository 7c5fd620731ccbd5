package mongoauth

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"strings"
)

// MongoDBX509 is the mechanism that authenticates a TLS client by its
// verified certificate, as the user of the certificate's subject in the
// $external database.
const MongoDBX509 Mechanism = "MONGODB-X509"

// ExternalDB is the database of the users whose credentials live outside
// the server (certificate subjects).
const ExternalDB = "$external"

// attributeNames are the short names MongoDB prints for the attribute
// types of a distinguished name; other types print as their dotted OID.
var attributeNames = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.4":                    "SN",
	"2.5.4.5":                    "serialNumber",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.9":                    "street",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.12":                   "title",
	"2.5.4.17":                   "postalCode",
	"2.5.4.42":                   "GN",
	"0.9.2342.19200300.100.1.1":  "UID",
	"0.9.2342.19200300.100.1.25": "DC",
	"1.2.840.113549.1.9.1":       "emailAddress",
}

// SubjectName is a certificate's subject as MongoDB names its X.509 user:
// RFC 2253 form, the last relative distinguished name first, the
// attributes of one joined by "+", values escaped as RFC 4514 says.
func SubjectName(cert *x509.Certificate) (string, error) {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(cert.RawSubject, &seq); err != nil {
		return "", fmt.Errorf("mongoauth: certificate subject: %w", err)
	} else if len(rest) != 0 {
		return "", fmt.Errorf("mongoauth: certificate subject: trailing data")
	}
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if i != len(seq)-1 {
			b.WriteByte(',')
		}
		for j, atv := range seq[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			name, ok := attributeNames[atv.Type.String()]
			if !ok {
				name = atv.Type.String()
			}
			b.WriteString(name)
			b.WriteByte('=')
			b.WriteString(escapeDNValue(fmt.Sprint(atv.Value)))
		}
	}
	return b.String(), nil
}

// escapeDNValue escapes an attribute value as RFC 4514 says: the special
// characters with a backslash, a leading '#' or space and a trailing
// space too.
func escapeDNValue(v string) string {
	var b strings.Builder
	for i, r := range v {
		switch {
		case strings.ContainsRune(`,+"\<>;`, r),
			i == 0 && (r == ' ' || r == '#'),
			i == len(v)-1 && r == ' ':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == 0:
			b.WriteString(`\00`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
