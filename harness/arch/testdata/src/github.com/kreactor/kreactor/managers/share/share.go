// Package share is a clean stub: it imports no group package.
package share
