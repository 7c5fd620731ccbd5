package main

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/admin"
)

// apiFlags are the flags every admin API command takes: where the server
// is, how to authenticate, and how to print.
type apiFlags struct {
	server    string
	tokenFile string
	caFile    string
	format    string
}

// tokenEnv is the environment variable that may hold the bearer token.
const tokenEnv = "MAYFLY_ADMIN_TOKEN"

// register adds the flags to cmd and its subcommands.
func (f *apiFlags) register(cmd *cobra.Command) {
	p := cmd.PersistentFlags()
	p.StringVar(&f.server, "server", admin.DefaultURL, "admin API `URL` of the server (its --http-addr)")
	p.StringVar(&f.tokenFile, "token-file", "", "read the bearer token from `FILE` (a server started with --admin-token-file requires one); default $"+tokenEnv)
	p.StringVar(&f.caFile, "tls-ca-file", "", "verify an https --server's certificate against the authorities of PEM `FILE` (default: the system's)")
	p.StringVar(&f.format, "format", "table", "output format: table (for people) or json (for scripts)")
}

// client validates the flags and returns the API client.
func (f *apiFlags) client() (*admin.Client, error) {
	if f.format != "table" && f.format != "json" {
		return nil, fmt.Errorf("--format: unknown format %q (want table or json)", f.format)
	}
	token := os.Getenv(tokenEnv)
	if f.tokenFile != "" {
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" || strings.ContainsAny(token, " \t\n") {
			return nil, fmt.Errorf("--token-file: %s must hold one token and nothing else", f.tokenFile)
		}
	}
	c, err := admin.NewClient(f.server, token)
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	if f.caFile != "" {
		pem, err := os.ReadFile(f.caFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca-file: %s holds no PEM certificate", f.caFile)
		}
		c.TrustCAs(pool)
	}
	return c, nil
}

// json reports whether the output is JSON.
func (f *apiFlags) json() bool { return f.format == "json" }

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// count formats n with thousands separators: 1,234,567.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// stamp formats a time for tables: UTC, to the second.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// seconds formats a duration given in seconds, rounded for people.
func seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
