// Package fakebroker is a stub that reaches Gomega.
package fakebroker

import _ "github.com/onsi/gomega"
