package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// Paths of the page and its login.
const (
	PathPage   = "/"
	PathAssets = "/ui/"
	PathLogin  = "/api/v1/login"
	PathLogout = "/api/v1/logout"
)

// CookieSession is the HttpOnly cookie the login form sets: a value derived
// from the token (never the token), so that rotating the token ends every
// page's session and a leaked cookie does not leak the token.
const CookieSession = "gate_lite_session"

//go:embed page
var pageFS embed.FS

// pagePolicy keeps the page to its own origin: no inline script, no other
// host, no framing.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func (s *Server) routePage() {
	files := http.FileServerFS(pageFS)
	s.mux.Handle("GET "+PathPage+"{$}", s.sameSite(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w)
		http.ServeFileFS(w, r, pageFS, "page/index.html")
	})))
	s.mux.Handle("GET "+PathAssets, s.sameSite(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w)
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/page/" + strings.TrimPrefix(r.URL.Path, PathAssets)
		files.ServeHTTP(w, r2)
	})))
	s.mux.Handle("POST "+PathLogin, s.sameSite(http.HandlerFunc(s.login)))
	s.mux.Handle("POST "+PathLogout, s.sameSite(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: CookieSession, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, PathPage, http.StatusSeeOther)
	})))
}

func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" makes a form's Origin "null"
	h.Set("Cache-Control", "no-store")
}

// login checks the form's token and sets the session cookie.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	want := s.token.Load()
	if want == nil {
		writeText(w, http.StatusForbidden, "admin API: no token is configured, there is nothing to log in to")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	got := sha256.Sum256([]byte(r.PostFormValue("token")))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		s.o.Log.Info("admin login refused", "peer", r.RemoteAddr)
		http.Redirect(w, r, PathPage+"?login=failed", http.StatusSeeOther)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieSession, Value: sessionValue(want), Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode, MaxAge: 12 * 3600})
	s.o.Log.Info("admin login", "peer", r.RemoteAddr)
	http.Redirect(w, r, PathPage, http.StatusSeeOther)
}

// sessionValue is the cookie value for a token digest.
func sessionValue(token *[32]byte) string {
	m := hmac.New(sha256.New, token[:])
	m.Write([]byte("gate lite admin session v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// cookieOK reports whether r carries the session cookie of the token.
func cookieOK(r *http.Request, token *[32]byte) bool {
	c, err := r.Cookie(CookieSession)
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(c.Value), []byte(sessionValue(token)))
}

// sameSite refuses a request from another site: a Host that is not this API's
// (DNS rebinding: a page's own name resolving here), an Origin that is not the
// Host, or a browser's Sec-Fetch-Site saying cross-site. A cookie or a token a
// browser holds is then never spent by another site's page.
func (s *Server) sameSite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.ownHost(r.Host) {
			writeText(w, http.StatusMisdirectedRequest, "admin API: foreign Host refused (use an IP address, localhost or the API's own name)")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
			writeText(w, http.StatusForbidden, "admin API: cross-origin request refused")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			writeText(w, http.StatusForbidden, "admin API: cross-site request refused")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownHost reports whether a Host names this API: an IP literal, localhost, or
// a name in Options.Hosts.
func (s *Server) ownHost(hostport string) bool {
	if localHost(hostport) {
		return true
	}
	host := strings.ToLower(strings.TrimSuffix(stripPort(hostport), "."))
	for _, h := range s.o.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

func stripPort(hostport string) string {
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		return hostport[:i]
	}
	return hostport
}

// sameOrigin reports whether an Origin header is the request's own host.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, host)
}
