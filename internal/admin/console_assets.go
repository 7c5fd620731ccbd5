package admin

import (
	"embed"
	"io/fs"
	"net/http"
)

// The console's page, built from web/console by `make console` and
// committed, so that the binary serves it offline with no build step.
//
//go:embed console/dist
var consoleFiles embed.FS

// consoleAssets serves the page at / and its files under /console/.
func consoleAssets() http.Handler {
	dist, err := fs.Sub(consoleFiles, "console/dist")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.FileServerFS(dist)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		if r.URL.Path == "/" {
			http.ServeFileFS(w, r, dist, "index.html")
			return
		}
		http.StripPrefix("/console", files).ServeHTTP(w, r)
	})
}
