package gomega
