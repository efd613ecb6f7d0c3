package ginkgo
