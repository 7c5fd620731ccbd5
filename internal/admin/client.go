package admin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is the admin address `mayfly serve` listens on by default.
const DefaultURL = "http://127.0.0.1:9390"

// Client is a typed client of the /v1/ API, for the mayfly CLI. Every
// error reply comes back as an *APIError.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// NewClient returns a client of the server at baseURL (scheme http or
// https; "host:port" means http) sending token as a bearer token when it is
// not empty.
func NewClient(baseURL, token string) (*Client, error) {
	raw := strings.TrimSpace(baseURL)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("admin: server URL %q: want http://HOST:PORT", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return &Client{base: u, token: token, http: &http.Client{Timeout: time.Minute}}, nil
}

// TrustCAs makes the client verify an https server's certificate against
// pool instead of the system's authorities.
func (c *Client) TrustCAs(pool *x509.CertPool) {
	c.http.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
}

// URL returns the server's base URL.
func (c *Client) URL() string { return c.base.String() }

// do sends a request and decodes a success reply into out.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = query.Encode()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("admin API at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("admin API at %s: read reply: %w", c.base, err)
	}
	if resp.StatusCode/100 != 2 {
		return replyError(resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("admin API at %s: decode reply: %w", c.base, err)
	}
	return nil
}

// replyError turns an error reply into an *APIError, also when it is not
// the API's JSON (a proxy, an older server).
func replyError(status int, data []byte) *APIError {
	var er errorReply
	if json.Unmarshal(data, &er) == nil && er.Error != nil && er.Error.Code != "" {
		er.Error.Status = status
		return er.Error
	}
	msg := strings.TrimSpace(string(data))
	if msg == "" {
		msg = http.StatusText(status)
	}
	code := CodeInternal
	switch status {
	case http.StatusBadRequest:
		code = CodeInvalidArgument
	case http.StatusUnauthorized:
		code = CodeUnauthenticated
	case http.StatusForbidden:
		code = CodePermissionDenied
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		code = CodeNotFound
	case http.StatusServiceUnavailable:
		code = CodeUnavailable
	}
	return &APIError{Status: status, Code: code, Message: msg}
}

// ListPolicies returns the policies, of one collection group when group is
// not empty.
func (c *Client) ListPolicies(ctx context.Context, group string) ([]Policy, error) {
	q := url.Values{}
	if group != "" {
		q.Set("collectionGroup", group)
	}
	var out struct {
		Policies []Policy `json:"policies"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/ttl/policies", q, nil, &out)
	return out.Policies, err
}

// GetPolicy returns the policy of a collection group.
func (c *Client) GetPolicy(ctx context.Context, group string) (Policy, error) {
	var out Policy
	err := c.do(ctx, http.MethodGet, "/v1/ttl/policies/"+url.PathEscape(group), nil, nil, &out)
	return out, err
}

// UpdatePolicy changes the policy of a collection group and returns the
// operation doing it; req.DryRun must be false.
func (c *Client) UpdatePolicy(ctx context.Context, group string, req UpdatePolicyRequest) (Operation, error) {
	if req.DryRun {
		return Operation{}, errors.New("admin: UpdatePolicy with DryRun set; call DryRunPolicy")
	}
	var out Operation
	err := c.do(ctx, http.MethodPatch, "/v1/ttl/policies/"+url.PathEscape(group), nil, req, &out)
	return out, err
}

// DryRunPolicy previews enabling a policy.
func (c *Client) DryRunPolicy(ctx context.Context, group string, req UpdatePolicyRequest) (DryRunResult, error) {
	req.DryRun = true
	var out DryRunResult
	err := c.do(ctx, http.MethodPatch, "/v1/ttl/policies/"+url.PathEscape(group), nil, req, &out)
	return out, err
}

// UpdateTTLIndex changes the expireAfterSeconds of the TTL index of an
// expiry source (ttl_index:db.coll.index); req.DryRun must be false.
func (c *Client) UpdateTTLIndex(ctx context.Context, source string, req UpdateTTLIndexRequest) (TTLIndexChange, error) {
	if req.DryRun {
		return TTLIndexChange{}, errors.New("admin: UpdateTTLIndex with DryRun set; call DryRunTTLIndex")
	}
	var out TTLIndexChange
	err := c.do(ctx, http.MethodPatch, "/v1/ttl/indexes/"+url.PathEscape(source), nil, req, &out)
	return out, err
}

// DryRunTTLIndex previews a change of a TTL index's expireAfterSeconds.
func (c *Client) DryRunTTLIndex(ctx context.Context, source string, req UpdateTTLIndexRequest) (TTLIndexDryRun, error) {
	req.DryRun = true
	var out TTLIndexDryRun
	err := c.do(ctx, http.MethodPatch, "/v1/ttl/indexes/"+url.PathEscape(source), nil, req, &out)
	return out, err
}

// ListOperations returns the operations, newest first.
func (c *Client) ListOperations(ctx context.Context) ([]Operation, error) {
	var out struct {
		Operations []Operation `json:"operations"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/operations", nil, nil, &out)
	return out.Operations, err
}

// GetOperation returns one operation.
func (c *Client) GetOperation(ctx context.Context, id string) (Operation, error) {
	var out Operation
	err := c.do(ctx, http.MethodGet, "/v1/operations/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// WaitOperation polls operation id every interval until it is done or ctx
// ends, calling progress (when not nil) with every state it reads, and
// returns the last one.
func (c *Client) WaitOperation(ctx context.Context, id string, interval time.Duration, progress func(Operation)) (Operation, error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		op, err := c.GetOperation(ctx, id)
		if err != nil {
			return op, err
		}
		if progress != nil {
			progress(op)
		}
		if op.Done {
			return op, nil
		}
		select {
		case <-ctx.Done():
			return op, ctx.Err()
		case <-t.C:
		}
	}
}
