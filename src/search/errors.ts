// A search refused for a reason the caller can fix (a damaged cursor, one made for another search,
// an unknown code): its message says what to do, and the server shows it as the tool's error.
export class SearchRefusal extends Error {
  override readonly name = "SearchRefusal";
}
