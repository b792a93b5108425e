import LightboxMetadata
import LightboxTestSupport
import Testing

@Suite("Reading XMP")
struct XMPTests {
    @Test("Attributes and elements, prefixes resolved by namespace, entities, Motion Photo directories")
    func packet() {
        let packet = """
            <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:pano="http://ns.google.com/photos/1.0/panorama/"
              xmlns:cam="http://ns.google.com/photos/1.0/camera/" xmlns:C="http://ns.google.com/photos/1.0/container/"
              xmlns:I="http://ns.google.com/photos/1.0/container/item/" xmlns:xap="http://ns.adobe.com/xap/1.0/"
              pano:ProjectionType="equirectangular" cam:MotionPhoto="1" xap:Rating='4'>
              <exif:GPSLatitude xmlns:exif="http://ns.adobe.com/exif/1.0/">48,51.5N</exif:GPSLatitude>
              <exif:GPSLongitude xmlns:exif="http://ns.adobe.com/exif/1.0/">2,17.7W</exif:GPSLongitude>
              <dc:note xmlns:dc="http://purl.org/dc/elements/1.1/">Fish &amp; chips &lt;3</dc:note>
              <C:Directory><rdf:Seq>
                <rdf:li rdf:parseType="Resource"><C:Item I:Mime="image/jpeg" I:Semantic="Primary" I:Length="0"/></rdf:li>
                <rdf:li rdf:parseType="Resource"><C:Item I:Mime="video/mp4" I:Semantic="MotionPhoto" I:Length="2537170"/></rdf:li>
              </rdf:Seq></C:Directory>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            <?xpacket end="w"?>
            """
        let xmp = XMPMetadata(packet: Array(packet.utf8))
        #expect(xmp.projectionType == "equirectangular", "a prefix other than GPano's usual one")
        #expect(xmp.isMotionPhoto)
        #expect(xmp.motionPhotoVideoLength == 2_537_170)
        #expect(xmp.rating == 4)
        #expect(abs((xmp.latitude ?? 0) - (48 + 51.5 / 60)) < 1e-9)
        #expect(abs((xmp.longitude ?? 0) + (2 + 17.7 / 60)) < 1e-9)
        #expect(xmp.properties["http://purl.org/dc/elements/1.1/ note"] == "Fish & chips <3")
    }

    @Test("Broken XML gives what was read before the damage, never a trap")
    func broken() {
        for text in ["<x:xmpmeta", "<<<>>>", "<a b=\"c", "</nothing>", String(repeating: "<a>", count: 500), ""] {
            _ = XMPMetadata(packet: Array(text.utf8))
        }
    }

    @Test("A JPEG's extended XMP is joined to its standard packet, as exiftool reads it")
    func extended() throws {
        let path = try Corpus.path("exiftool/images/ExtendedXMP.jpg")
        let metadata = try MetadataReader.read(fileAtPath: path)
        let oracle = try ExifTool.tags(["XMP-pdf:Title", "XMP-pdf:Author"], of: path)
        let pdf = "http://ns.adobe.com/pdf/1.3/ "
        #expect(metadata.xmp?.properties[pdf + "Title"] == oracle["Title"])
        #expect(metadata.xmp?.properties[pdf + "Author"] == oracle["Author"])
        #expect(oracle["Title"] == "PDF Title")
    }
}
