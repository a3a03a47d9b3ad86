# The repository documents itself (scripts/check-docs, part of make test):
# every relative Markdown link resolves inside the repository, no file
# names a tracker item or a file outside it, and docs/ABI.md documents
# every symbol the library exports and every name the header defines.

.PHONY: check-docs

check-docs: lib
	scripts/check-docs --lib $(LIB_SO) --cc "$(CC)"

TEST_TARGETS += check-docs
