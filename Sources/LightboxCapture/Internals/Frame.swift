import CCapture
import Foundation

/// A frame copied out of a source: 8-bit YCbCr 4:2:0 planes, packed (stride = width).
struct Frame: Sendable {
    var luma: [UInt8]
    var cb: [UInt8]
    var cr: [UInt8]
    let width: Int
    let height: Int
    /// Seconds of the session's clock.
    let time: Double

    init(copying item: ccapture_item) {
        width = Int(item.width)
        height = Int(item.height)
        time = Double(item.time_us) / 1_000_000
        func plane(_ index: Int, _ w: Int, _ h: Int) -> [UInt8] {
            let source = withUnsafePointer(to: item.planes) {
                $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 3) { $0[index] }
            }
            let stride = withUnsafePointer(to: item.strides) {
                $0.withMemoryRebound(to: Int32.self, capacity: 3) { Int($0[index]) }
            }
            guard let source else { return [UInt8](repeating: 128, count: w * h) }
            return [UInt8](unsafeUninitializedCapacity: w * h) { buffer, count in
                for row in 0..<h {
                    (buffer.baseAddress! + row * w).update(from: source + row * stride, count: w)
                }
                count = w * h
            }
        }
        luma = plane(0, width, height)
        cb = plane(1, width / 2, height / 2)
        cr = plane(2, width / 2, height / 2)
    }

    private init(luma: [UInt8], cb: [UInt8], cr: [UInt8], width: Int, height: Int, time: Double) {
        self.luma = luma
        self.cb = cb
        self.cr = cr
        self.width = width
        self.height = height
        self.time = time
    }

    /// The planes as C wants them, for the length of `body`.
    func withPlanes<T>(_ body: ([UnsafePointer<UInt8>?], [Int32]) throws -> T) rethrows -> T {
        try luma.withUnsafeBufferPointer { y in
            try cb.withUnsafeBufferPointer { u in
                try cr.withUnsafeBufferPointer { v in
                    try body(
                        [y.baseAddress, u.baseAddress, v.baseAddress],
                        [Int32(width), Int32(width / 2), Int32(width / 2)])
                }
            }
        }
    }

    /// Full-range RGB, rows of `width * 3` bytes, scaled to `width` by `height`.
    func rgb(width outWidth: Int, height outHeight: Int) -> [UInt8]? {
        var rgb = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        let done = withPlanes { planes, strides in
            rgb.withUnsafeMutableBufferPointer { out in
                ccapture_yuv420_to_rgb(
                    planes, strides, Int32(width), Int32(height), out.baseAddress, Int32(outWidth), Int32(outHeight))
            }
        }
        return done == 1 ? rgb : nil
    }

    /// The frame scaled to fit in `maximum` (its sides kept even), or itself when it fits.
    func fitting(_ maximum: PhotoDimensions?) -> Frame {
        guard let maximum, maximum.width < width || maximum.height < height else { return self }
        let size = PhotoDimensions(width: width, height: height).fitting(maximum)
        var y = [UInt8](repeating: 0, count: size.width * size.height)
        var u = [UInt8](repeating: 128, count: size.width / 2 * (size.height / 2))
        var v = u
        let done = withPlanes { planes, strides in
            y.withUnsafeMutableBufferPointer { y in
                u.withUnsafeMutableBufferPointer { u in
                    v.withUnsafeMutableBufferPointer { v in
                        ccapture_scale_yuv420(
                            planes, strides, Int32(width), Int32(height),
                            [y.baseAddress, u.baseAddress, v.baseAddress],
                            [Int32(size.width), Int32(size.width / 2), Int32(size.width / 2)], Int32(size.width),
                            Int32(size.height))
                    }
                }
            }
        }
        guard done == 1 else { return self }
        return Frame(luma: y, cb: u, cr: v, width: size.width, height: size.height, time: time)
    }

    /// The frame as exposed `bias` EV brighter or darker: the synthetic camera's exposure.
    func exposed(by bias: Double) -> Frame {
        guard bias != 0 else { return self }
        let gain = pow(2, bias)
        var copy = self
        copy.luma = luma.map { UInt8(clamping: Int((16 + (Double($0) - 16) * gain).rounded())) }
        return copy
    }

    /// How sharp the frame is: the variance of its luma's Laplacian over a grid of samples, the
    /// usual focus measure (a burst's representative is the sharpest).
    var sharpness: Double {
        guard width > 2, height > 2 else { return 0 }
        var sum = 0.0
        var squares = 0.0
        var count = 0.0
        let step = Swift.max(1, Swift.min(width, height) / 256)
        var row = 1
        while row < height - 1 {
            var column = 1
            while column < width - 1 {
                let at = row * width + column
                let laplacian =
                    4 * Double(luma[at]) - Double(luma[at - 1]) - Double(luma[at + 1]) - Double(luma[at - width])
                    - Double(luma[at + width])
                sum += laplacian
                squares += laplacian * laplacian
                count += 1
                column += step
            }
            row += step
        }
        let mean = sum / count
        return squares / count - mean * mean
    }
}
