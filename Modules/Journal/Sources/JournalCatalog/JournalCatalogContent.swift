// The journal's content, shipped with the module. It is Swift rather than a JSON
// resource: decoding JSON with Codable at every start of the app cost more than the
// rest of registering every flow. `JournalCatalog(json:)` still reads a catalog an app
// supplies itself; both are validated by the same initializer.

extension JournalCatalog {
  static func content() throws(CatalogError) -> JournalCatalog {
    try JournalCatalog(
      colours: [
        Colour(id: "sage", hex: "#8FB996"),
        Colour(id: "sky", hex: "#7FB3D5"),
        Colour(id: "sand", hex: "#E3C78A"),
        Colour(id: "coral", hex: "#E8836B"),
        Colour(id: "plum", hex: "#9B6B9E"),
        Colour(id: "slate", hex: "#6C7A89"),
        Colour(id: "moss", hex: "#6B8E23"),
        Colour(id: "amber", hex: "#F0A202"),
        Colour(id: "rose", hex: "#D98A9F"),
        Colour(id: "indigo", hex: "#4B5D9B"),
        Colour(id: "clay", hex: "#B5651D"),
      ],
      layers: [
        Layer(id: 0, colour: "sage", title: "Self-care", subtitle: "Small things that look after you"),
        Layer(id: 1, colour: "sky", title: "Body", subtitle: "What your body is telling you"),
        Layer(id: 2, colour: "sand", title: "Energy", subtitle: "How much you have to give"),
        Layer(id: 3, colour: "coral", title: "Heart", subtitle: "The feelings under the surface"),
        Layer(id: 4, colour: "plum", title: "Mind", subtitle: "The thoughts that keep returning"),
        Layer(id: 5, colour: "slate", title: "Rest", subtitle: "How you recover"),
        Layer(id: 6, colour: "moss", title: "Work", subtitle: "What you make and carry"),
        Layer(id: 7, colour: "amber", title: "Connection", subtitle: "The people around you"),
        Layer(id: 8, colour: "rose", title: "Care", subtitle: "How you treat yourself"),
        Layer(id: 9, colour: "indigo", title: "Meaning", subtitle: "What matters to you"),
        Layer(id: 10, colour: "clay", title: "Change", subtitle: "What is shifting"),
      ],
      phases: [
        Phase(id: 1, title: "Noticing", subtitle: "Something stirs"),
        Phase(id: 2, title: "Naming", subtitle: "Putting words to it"),
        Phase(id: 3, title: "Feeling", subtitle: "Letting it be felt"),
        Phase(id: 4, title: "Understanding", subtitle: "Seeing where it comes from"),
        Phase(id: 5, title: "Choosing", subtitle: "Deciding what to do"),
        Phase(id: 6, title: "Integrating", subtitle: "Carrying it forward"),
      ],
      entries: [
        Entry(
          id: 1, layer: 1, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I listen to the ache and slow down."),
        Entry(
          id: 2, layer: 1, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I push through the ache and ignore it."),
        Entry(
          id: 3, layer: 1, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I listen to the ache and slow down."),
        Entry(
          id: 4, layer: 1, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I push through the ache and ignore it."),
        Entry(
          id: 5, layer: 1, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I listen to the ache and slow down."),
        Entry(
          id: 6, layer: 1, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I push through the ache and ignore it."),
        Entry(
          id: 7, layer: 1, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I listen to the ache and slow down."),
        Entry(
          id: 8, layer: 1, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I push through the ache and ignore it."),
        Entry(
          id: 9, layer: 1, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I listen to the ache and slow down."),
        Entry(
          id: 10, layer: 1, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I push through the ache and ignore it."),
        Entry(
          id: 11, layer: 1, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I listen to the ache and slow down."),
        Entry(
          id: 12, layer: 1, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I push through the ache and ignore it."),
        Entry(
          id: 13, layer: 2, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I spend my energy where it counts."),
        Entry(
          id: 14, layer: 2, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I spend myself on everything at once."),
        Entry(
          id: 15, layer: 2, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I spend my energy where it counts."),
        Entry(
          id: 16, layer: 2, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I spend myself on everything at once."),
        Entry(
          id: 17, layer: 2, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I spend my energy where it counts."),
        Entry(
          id: 18, layer: 2, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I spend myself on everything at once."),
        Entry(
          id: 19, layer: 2, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I spend my energy where it counts."),
        Entry(
          id: 20, layer: 2, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I spend myself on everything at once."),
        Entry(
          id: 21, layer: 2, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I spend my energy where it counts."),
        Entry(
          id: 22, layer: 2, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I spend myself on everything at once."),
        Entry(
          id: 23, layer: 2, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I spend my energy where it counts."),
        Entry(
          id: 24, layer: 2, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I spend myself on everything at once."),
        Entry(
          id: 25, layer: 3, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I let the feeling move through me."),
        Entry(
          id: 26, layer: 3, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I hold the feeling down until it hardens."),
        Entry(
          id: 27, layer: 3, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I let the feeling move through me."),
        Entry(
          id: 28, layer: 3, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I hold the feeling down until it hardens."),
        Entry(
          id: 29, layer: 3, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I let the feeling move through me."),
        Entry(
          id: 30, layer: 3, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I hold the feeling down until it hardens."),
        Entry(
          id: 31, layer: 3, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I let the feeling move through me."),
        Entry(
          id: 32, layer: 3, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I hold the feeling down until it hardens."),
        Entry(
          id: 33, layer: 3, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I let the feeling move through me."),
        Entry(
          id: 34, layer: 3, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I hold the feeling down until it hardens."),
        Entry(
          id: 35, layer: 3, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I let the feeling move through me."),
        Entry(
          id: 36, layer: 3, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I hold the feeling down until it hardens."),
        Entry(
          id: 37, layer: 4, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I watch my thoughts without obeying them."),
        Entry(
          id: 38, layer: 4, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I follow every worry to its worst end."),
        Entry(
          id: 39, layer: 4, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I watch my thoughts without obeying them."),
        Entry(
          id: 40, layer: 4, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I follow every worry to its worst end."),
        Entry(
          id: 41, layer: 4, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I watch my thoughts without obeying them."),
        Entry(
          id: 42, layer: 4, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I follow every worry to its worst end."),
        Entry(
          id: 43, layer: 4, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I watch my thoughts without obeying them."),
        Entry(
          id: 44, layer: 4, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I follow every worry to its worst end."),
        Entry(
          id: 45, layer: 4, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I watch my thoughts without obeying them."),
        Entry(
          id: 46, layer: 4, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I follow every worry to its worst end."),
        Entry(
          id: 47, layer: 4, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I watch my thoughts without obeying them."),
        Entry(
          id: 48, layer: 4, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I follow every worry to its worst end."),
        Entry(
          id: 49, layer: 5, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I give myself permission to stop."),
        Entry(
          id: 50, layer: 5, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I earn rest only once everything is done."),
        Entry(
          id: 51, layer: 5, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I give myself permission to stop."),
        Entry(
          id: 52, layer: 5, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I earn rest only once everything is done."),
        Entry(
          id: 53, layer: 5, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I give myself permission to stop."),
        Entry(
          id: 54, layer: 5, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I earn rest only once everything is done."),
        Entry(
          id: 55, layer: 5, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I give myself permission to stop."),
        Entry(
          id: 56, layer: 5, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I earn rest only once everything is done."),
        Entry(
          id: 57, layer: 5, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I give myself permission to stop."),
        Entry(
          id: 58, layer: 5, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I earn rest only once everything is done."),
        Entry(
          id: 59, layer: 5, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I give myself permission to stop."),
        Entry(
          id: 60, layer: 5, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I earn rest only once everything is done."),
        Entry(
          id: 61, layer: 6, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I do the next small task well."),
        Entry(
          id: 62, layer: 6, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I measure my worth by what I finish."),
        Entry(
          id: 63, layer: 6, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I do the next small task well."),
        Entry(
          id: 64, layer: 6, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I measure my worth by what I finish."),
        Entry(
          id: 65, layer: 6, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I do the next small task well."),
        Entry(
          id: 66, layer: 6, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I measure my worth by what I finish."),
        Entry(
          id: 67, layer: 6, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I do the next small task well."),
        Entry(
          id: 68, layer: 6, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I measure my worth by what I finish."),
        Entry(
          id: 69, layer: 6, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I do the next small task well."),
        Entry(
          id: 70, layer: 6, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I measure my worth by what I finish."),
        Entry(
          id: 71, layer: 6, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I do the next small task well."),
        Entry(
          id: 72, layer: 6, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I measure my worth by what I finish."),
        Entry(
          id: 73, layer: 7, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I reach out to someone I trust."),
        Entry(
          id: 74, layer: 7, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I withdraw so no one sees me struggle."),
        Entry(
          id: 75, layer: 7, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I reach out to someone I trust."),
        Entry(
          id: 76, layer: 7, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I withdraw so no one sees me struggle."),
        Entry(
          id: 77, layer: 7, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I reach out to someone I trust."),
        Entry(
          id: 78, layer: 7, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I withdraw so no one sees me struggle."),
        Entry(
          id: 79, layer: 7, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I reach out to someone I trust."),
        Entry(
          id: 80, layer: 7, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I withdraw so no one sees me struggle."),
        Entry(
          id: 81, layer: 7, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I reach out to someone I trust."),
        Entry(
          id: 82, layer: 7, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I withdraw so no one sees me struggle."),
        Entry(
          id: 83, layer: 7, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I reach out to someone I trust."),
        Entry(
          id: 84, layer: 7, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I withdraw so no one sees me struggle."),
        Entry(
          id: 85, layer: 8, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I speak to myself as to a friend."),
        Entry(
          id: 86, layer: 8, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I criticise myself for feeling this way."),
        Entry(
          id: 87, layer: 8, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I speak to myself as to a friend."),
        Entry(
          id: 88, layer: 8, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I criticise myself for feeling this way."),
        Entry(
          id: 89, layer: 8, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I speak to myself as to a friend."),
        Entry(
          id: 90, layer: 8, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I criticise myself for feeling this way."),
        Entry(
          id: 91, layer: 8, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I speak to myself as to a friend."),
        Entry(
          id: 92, layer: 8, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I criticise myself for feeling this way."),
        Entry(
          id: 93, layer: 8, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I speak to myself as to a friend."),
        Entry(
          id: 94, layer: 8, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I criticise myself for feeling this way."),
        Entry(
          id: 95, layer: 8, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I speak to myself as to a friend."),
        Entry(
          id: 96, layer: 8, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I criticise myself for feeling this way."),
        Entry(
          id: 97, layer: 9, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I remember what this is for."),
        Entry(
          id: 98, layer: 9, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I tell myself none of it matters."),
        Entry(
          id: 99, layer: 9, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I remember what this is for."),
        Entry(
          id: 100, layer: 9, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I tell myself none of it matters."),
        Entry(
          id: 101, layer: 9, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I remember what this is for."),
        Entry(
          id: 102, layer: 9, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I tell myself none of it matters."),
        Entry(
          id: 103, layer: 9, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I remember what this is for."),
        Entry(
          id: 104, layer: 9, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I tell myself none of it matters."),
        Entry(
          id: 105, layer: 9, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I remember what this is for."),
        Entry(
          id: 106, layer: 9, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I tell myself none of it matters."),
        Entry(
          id: 107, layer: 9, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I remember what this is for."),
        Entry(
          id: 108, layer: 9, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I tell myself none of it matters."),
        Entry(
          id: 109, layer: 10, phase: 1, kind: .medicinal, dosage: "a drop",
          expression: "Noticing it, I make room for what is new."),
        Entry(
          id: 110, layer: 10, phase: 1, kind: .toxic, dosage: "a drop",
          expression: "Noticing it, I cling to how things used to be."),
        Entry(
          id: 111, layer: 10, phase: 2, kind: .medicinal, dosage: "a sip",
          expression: "Naming it, I make room for what is new."),
        Entry(
          id: 112, layer: 10, phase: 2, kind: .toxic, dosage: "a sip",
          expression: "Naming it, I cling to how things used to be."),
        Entry(
          id: 113, layer: 10, phase: 3, kind: .medicinal, dosage: "a cup",
          expression: "Feeling it, I make room for what is new."),
        Entry(
          id: 114, layer: 10, phase: 3, kind: .toxic, dosage: "a cup",
          expression: "Feeling it, I cling to how things used to be."),
        Entry(
          id: 115, layer: 10, phase: 4, kind: .medicinal, dosage: "a dose",
          expression: "Understanding it, I make room for what is new."),
        Entry(
          id: 116, layer: 10, phase: 4, kind: .toxic, dosage: "a dose",
          expression: "Understanding it, I cling to how things used to be."),
        Entry(
          id: 117, layer: 10, phase: 5, kind: .medicinal, dosage: "a measure",
          expression: "Choosing now, I make room for what is new."),
        Entry(
          id: 118, layer: 10, phase: 5, kind: .toxic, dosage: "a measure",
          expression: "Choosing now, I cling to how things used to be."),
        Entry(
          id: 119, layer: 10, phase: 6, kind: .medicinal, dosage: "a habit",
          expression: "Looking back, I make room for what is new."),
        Entry(
          id: 120, layer: 10, phase: 6, kind: .toxic, dosage: "a habit",
          expression: "Looking back, I cling to how things used to be."),
      ],
      strategies: [
        Strategy(id: 1, text: "Take ten slow breaths, longer out than in", colour: "sky"),
        Strategy(id: 2, text: "Drink a glass of water", colour: "sky"),
        Strategy(id: 3, text: "Step outside for five minutes", colour: "moss"),
        Strategy(id: 4, text: "Write down three things that went well", colour: "amber"),
        Strategy(id: 5, text: "Message someone you miss", colour: "rose"),
        Strategy(id: 6, text: "Stretch your neck and shoulders", colour: "sage"),
        Strategy(id: 7, text: "Put your phone away for an hour", colour: "slate"),
        Strategy(id: 8, text: "Go to bed thirty minutes earlier", colour: "indigo"),
      ])
  }
}
