module github.com/urlget/urlget

go 1.26
